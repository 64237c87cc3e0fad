// Lint encodes the import boundaries of the design (README "Layout", docs/design.md): rules only, no style (that is
// Prettier's). `npm run lint`; CI runs it before the tests.
//   modules/    pure: never cdktf, constructs, stacks, scripts or the simulator; inside, arrows run one way
//               (`moduleLayers` below: a folder imports only the folders before it, never one after it)
//   constructs/ never stacks, scripts or the simulator; never the file system or the environment; never the stock
//               bindings constructs/providers/ patches (Manifest, Release, HelmProvider)
//   stacks/     never scripts or the simulator; never the file system or the environment
//   sim/        the simulator: never scripts (the harness that synthesizes and runs tofu lives there), never the twin
//   twin/       the lab twin (played controllers, harness, kubelets, applier): never constructs, stacks or
//               modules/rendering: it acts on the synthesized output as the real parts would (`twinPatterns`)
// Nothing in modules/, constructs/ or stacks/ imports twin/ (Cluster API's `.import-restrictions` are the model;
// test/lint/twin-imports.test.ts plants each violation and checks the whole tree).
import tsParser from '@typescript-eslint/parser';
import tsPlugin from '@typescript-eslint/eslint-plugin';

/** A relative import that climbs to one of the project's top-level directories. */
const topLevel = (dirs) => `^(\\.\\./)+(${dirs.join('|')})(/|$)`;

const restrict = (patterns, paths = []) => ({ 'no-restricted-imports': ['error', { patterns, paths }] });

/**
 * The stock bindings constructs/providers/ patches (cdktf 0.21 renders them wrong in HCL): everywhere
 * else the patched classes are used, under their own names.
 */
const patchedBindings = [
  { name: '@cdktf/provider-kubernetes/lib/manifest', message: 'use KubernetesManifest from constructs/providers/kubernetes-manifest (exact HCL).' },
  { name: '@cdktf/provider-helm/lib/release', message: 'use HelmV3Release from constructs/providers/helm-v3 (helm 3.x nested attributes in HCL).' },
  { name: '@cdktf/provider-helm/lib/provider', message: 'use HelmV3Provider from constructs/providers/helm-v3 (helm 3.x nested attributes in HCL).' },
];

const constructPatterns = [
  {
    regex: topLevel(['stacks', 'scripts', 'sim', 'twin']),
    message: 'constructs/ never imports stacks, scripts, the simulator or the twin: pass what the construct needs as props.',
  },
  { regex: '^(node:)?fs(/promises)?$', message: 'constructs never read files: the CLI reads them and passes the content as props.' },
];

/**
 * The folders of modules/, lowest first: each may import only the folders before it (and itself).
 * versions (pins) → crds → config (the lab, its rules) → placement → management → tenants →
 * rendering (the whole lab as data: renderLab) → foresight → review. An import that runs back up
 * (config → placement, tenants → review) fails lint; test/lint/module-layers.test.ts shows it.
 */
export const moduleLayers = ['versions', 'crds', 'config', 'placement', 'management', 'tenants', 'rendering', 'foresight', 'review'];

const modulePurity = [
  {
    regex: '^(cdktf|constructs)(/|$)|^@cdktf/',
    message: 'modules/ is pure: no cdktf or constructs (build constructs in constructs/ or stacks/ from what the module returns).',
  },
  {
    regex: topLevel(['constructs', 'stacks', 'scripts', 'sim', 'twin']),
    message: 'modules/ is pure: it never imports constructs, stacks, scripts, the simulator or the twin; move the shared code into modules/.',
  },
];

/** modules/<folder>: purity, and no import of a folder after it in `moduleLayers`. */
const moduleLayerConfigs = moduleLayers.map((folder, i) => {
  const above = moduleLayers.slice(i + 1);
  const patterns = [...modulePurity];
  if (above.length > 0) {
    patterns.push({
      regex: `^(\\.\\./)+(modules/)?(${above.join('|')})(/|$)`,
      message: `modules/${folder} sits below ${above.join(', ')} (moduleLayers in eslint.config.mjs): arrows run one way; move what both need down, or the caller up.`,
    });
  }
  return { files: [`modules/${folder}/**/*.ts`], rules: restrict(patterns) };
});

/**
 * twin/ acts on the synthesized output (the stacks' JSON, the plan) as the real controllers would: it
 * never builds or renders them itself. The harness synthesizes through scripts/lib/synthesize.ts, the
 * CLI's own road.
 */
export const twinPatterns = [
  {
    regex: `${topLevel(['constructs', 'stacks'])}|^(\\.\\./)+modules/rendering(/|$)`,
    message:
      'twin/ never imports constructs, stacks or modules/rendering: it acts on the synthesized output as the real parts would; read the stacks, or take a pure module outside the rendering.',
  },
];

export default [
  { ignores: ['dist/**', 'node_modules/**', '.gen/**', '.toolchain/**', 'cdktf.out/**', 'crds/**', '**/*.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 2022, sourceType: 'module' },
    // Registered (no rules enabled) so the sources' `eslint-disable @typescript-eslint/...` comments resolve.
    plugins: { '@typescript-eslint': tsPlugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  { files: ['modules/**/*.ts'], rules: restrict(modulePurity) },
  ...moduleLayerConfigs,
  {
    files: ['stacks/**/*.ts'],
    rules: {
      ...restrict(
        [
          {
            regex: topLevel(['scripts', 'sim', 'twin']),
            message: 'stacks/ never imports scripts, the simulator or the twin: the CLI passes what a stack renders.',
          },
          { regex: '^(node:)?fs(/promises)?$', message: 'stacks never read files: the CLI reads them and passes the content.' },
        ],
        patchedBindings,
      ),
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'stacks never read the environment: the CLI reads it and passes the value.' },
      ],
    },
  },
  {
    files: ['constructs/**/*.ts'],
    rules: {
      ...restrict(constructPatterns, patchedBindings),
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'constructs never read the environment: the CLI reads it and passes the value as props.' },
      ],
    },
  },
  // The patched provider classes themselves extend the stock bindings.
  { files: ['constructs/providers/**/*.ts'], rules: restrict(constructPatterns) },
  // Test support stays out of what ships: strict CRD validation (ajv) lives in test/support/crds.ts.
  {
    files: ['modules/**/*.ts', 'constructs/**/*.ts', 'stacks/**/*.ts', 'scripts/**/*.ts', 'twin/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportDeclaration[source.value=/^ajv(\\/|$)/]', message: 'ajv is test support (a devDependency): validate in test/support/crds.ts.' },
      ],
    },
  },
  // No `any` in what ships without a reason: type it, or `// eslint-disable-next-line
  // @typescript-eslint/no-explicit-any -- why` (test/lint/no-explicit-any.test.ts shows the rule fire).
  {
    files: ['modules/**/*.ts', 'constructs/**/*.ts', 'stacks/**/*.ts', 'scripts/**/*.ts', 'twin/**/*.ts', 'sim/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    files: ['sim/**/*.ts'],
    rules: restrict([
      {
        regex: topLevel(['scripts', 'stacks', 'constructs', 'twin']),
        message:
          'sim/ is the simulator alone: it never imports scripts, stacks, constructs or the twin; harness code that drives it belongs in scripts/ or twin/.',
      },
    ]),
  },
  { files: ['twin/**/*.ts'], rules: restrict(twinPatterns) },
  // Lines within Prettier's printWidth (160): what Prettier cannot break (strings, template
  // literals, regular expressions, URLs) is left to it.
  {
    files: ['**/*.ts'],
    rules: {
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
    },
  },
];
