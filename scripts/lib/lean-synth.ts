/**
 * cdktf's token resolution, without its cost on plain data.
 *
 * `TerraformStack` resolves every element's attributes three times per synth (`prepareStack`, then
 * each element and the whole stack in `toTerraform`), through `resolve` of cdktf 0.21's
 * `lib/tokens/private/resolve.js`, which allocates two contexts, closures and a path array for
 * every key and runs three regular expressions over every string, whether or not it holds a
 * token. For a 100-tenant lab that was 36 % of a synth's CPU profile (docs/development.md
 * "Where the time goes"). pvekaas's attributes are mostly literal data: manifests, names, numbers.
 *
 * `withLeanResolve` makes cdktf's `_tokens.resolve` (the one `terraform-stack.js` calls) walk plain
 * data itself and hand every value that is or may hold a token to cdktf's own resolver, unchanged:
 *
 * - a string containing a token marker (`${TfToken[`, `#{TfToken[`, `&{TfToken[`), matching
 *   cdktf's number-token pattern, or equal to one of its map-token values;
 * - a number whose top 16 bits carry cdktf's token or list-token tag, or its map-token value;
 * - an array holding such a string or number, an object with a map-token key, anything with a
 *   `resolve` method (a token), a construct, a function (cdktf's errors), and anything deeper than
 *   `DEPTH` (cdktf's own limit then reports a cycle).
 *
 * Everything else comes out as cdktf's resolver gives it: strings, numbers, booleans and `null`
 * as they are, `undefined` dropped from arrays and objects, keys in their order. cdktf resolves
 * a token the same from any depth of plain data (the context flags it passes down — braces,
 * escapes, iterators — are set only inside tokens), so the output is byte for byte cdktf's; the
 * determinism and cache tests of test/synth compare whole labs (test/synth/lean-resolve.test.ts
 * compares this resolver with cdktf's on values with every kind of token).
 * PVEKAAS_TOKEN_TRACES=1 keeps cdktf's resolve (for debugging an unresolvable token).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { TerraformElement, TerraformStack, type App } from 'cdktf';
import type { IConstruct } from 'constructs';

type Resolve = (scope: unknown, obj: unknown, preparing?: boolean) => unknown;

interface TokensModule {
  resolve: Resolve;
}

const tokensModule = require('cdktf/lib/_tokens') as TokensModule;

/** cdktf's own resolve (`lib/_tokens.js`). */
const cdktfResolve: Resolve = tokensModule.resolve;

/** Deeper plain data goes to cdktf, whose limit (200 levels) then names a cycle. */
const DEPTH = 100;

/** `NUMBER_TOKEN_REGEX` of cdktf's `lib/tokens/private/encoding.js`, without the g flag: the same test. */
const NUMBER_TOKEN = /[-|\d|.+]+(e[-|\d|.|e|E|+]+)/;
/** `Token.STRING_MAP_TOKEN_VALUE`, `ANY_MAP_TOKEN_VALUE`, `NUMBER_MAP_TOKEN_VALUE` of `lib/tokens/token.js`. */
const MAP_TOKEN_STRINGS = new Set(['String Map Token Value', 'Any Map Token Value']);
const NUMBER_MAP_TOKEN_VALUE = -123456789;
/** The tags in the top 16 bits of a token-encoded double (`DOUBLE_TOKEN_MARKER_BITS`, `DOUBLE_LIST_TOKEN_MARKER_BITS`). */
const DOUBLE_TOKEN_TAG = 0xfdff;
const DOUBLE_LIST_TOKEN_TAG = 0xfbff;

const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);

/** Characters NUMBER_TOKEN allows before its `e` (`[-|\d|.+]`) and after it (`[-|\d|.|e|E|+]`). */
const beforeE = (c: number) => c === 45 || c === 124 || c === 46 || c === 43 || (c >= 48 && c <= 57);
const afterE = (c: number) => beforeE(c) || c === 101 || c === 69;

/**
 * `NUMBER_TOKEN.test(s)`, without the regular expression (4 % of a 100-tenant synth's profile, run
 * over every string): the pattern matches exactly when some `e` has one of its characters right
 * before it and one right after (each `+` needs only one). test/synth/lean-synth.test.ts checks
 * the two agree on random and number-like strings.
 */
export function numberTokenLike(s: string): boolean {
  for (let i = s.indexOf('e', 1); i > 0 && i < s.length - 1; i = s.indexOf('e', i + 1)) {
    if (beforeE(s.charCodeAt(i - 1)) && afterE(s.charCodeAt(i + 1))) return true;
  }
  return false;
}

function tokenString(s: string): boolean {
  return s.includes('{TfToken[') || MAP_TOKEN_STRINGS.has(s) || numberTokenLike(s);
}

function tokenNumber(n: number): boolean {
  if (n === NUMBER_MAP_TOKEN_VALUE) return true;
  float[0] = n;
  const tag = words[1] >>> 16;
  return tag === DOUBLE_TOKEN_TAG || tag === DOUBLE_LIST_TOKEN_TAG;
}

function listToken(x: unknown): boolean {
  return (typeof x === 'string' && x.includes('#{TfToken[')) || (typeof x === 'number' && tokenNumber(x));
}

/**
 * cdktf's resolve with plain data walked here: a value that is or may hold a token (and an array
 * or object that holds a list or map token, or has token keys) is resolved by cdktf itself.
 */
function leanResolve(scope: unknown, obj: unknown, preparing = false): unknown {
  const walk = (value: unknown, depth: number): unknown => {
    switch (typeof value) {
      case 'undefined':
        return undefined;
      case 'string':
        return tokenString(value) ? cdktfResolve(scope, value, preparing) : value;
      case 'number':
        return tokenNumber(value) ? cdktfResolve(scope, value, preparing) : value;
      case 'object':
        break;
      case 'function':
        return cdktfResolve(scope, value, preparing);
      default:
        return value;
    }
    if (value === null) return null;
    if (value instanceof Date) return value;
    if (depth > DEPTH) return cdktfResolve(scope, value, preparing);
    if (Array.isArray(value)) {
      if (value.some(listToken)) return cdktfResolve(scope, value, preparing);
      const out: unknown[] = [];
      for (const x of value) {
        const v = walk(x, depth + 1);
        if (v !== undefined) out.push(v);
      }
      return out;
    }
    const record = value as Record<string, unknown>;
    if (typeof record.resolve === 'function' || (record._children !== undefined && record._metadata !== undefined))
      return cdktfResolve(scope, value, preparing);
    const keys = Object.keys(record);
    if (keys.some(tokenString)) return cdktfResolve(scope, value, preparing);
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const v = walk(record[key], depth + 1);
      if (v !== undefined) out[key] = v;
    }
    return out;
  };
  return walk(obj, 0);
}

/** The lean resolve, for as long as `body` runs (not nested: the outermost call restores cdktf's). */
export function withLeanResolve<T>(body: () => T): T {
  if (process.env.PVEKAAS_TOKEN_TRACES === '1' || tokensModule.resolve === leanResolve) return body();
  tokensModule.resolve = leanResolve;
  try {
    return body();
  } finally {
    tokensModule.resolve = cdktfResolve;
  }
}

/** For tests: cdktf's resolve and this one, called as terraform-stack.js calls them. */
export const resolvers = { cdktf: cdktfResolve, lean: leanResolve };

/** For tests: cdktf's number-token pattern, which `numberTokenLike` stands for. */
export const NUMBER_TOKEN_PATTERN = NUMBER_TOKEN;

/** cdktf's `terraformElements` (lib/terraform-stack.js, not exported): a stack's elements, not those of stacks nested in it. */
function elementsOf(node: IConstruct, into: TerraformElement[] = []): TerraformElement[] {
  if (TerraformElement.isTerraformElement(node)) into.push(node);
  for (const child of node.node.children) if (!TerraformStack.isStack(child)) elementsOf(child, into);
  return into;
}

/**
 * What `App.synth()` does (cdktf 0.21 lib/app.js), for the given stacks of `app`, with each element
 * resolved once instead of twice: `prepareStack` resolves every element's `toTerraform()` (in
 * "preparing" mode, which differs from the final resolve only in registering cross-stack
 * references, whose identifiers both then give alike), and in the JSON output that resolved value
 * is what the element gives `toTerraform` for the rest of this synth. cdktf's stack `toTerraform`
 * then merges the fragments and resolves the whole stack again, as it does with its own resolved
 * fragments. Elements added while preparing (cross-stack outputs and remote state) are resolved
 * as cdktf does. HCL output resolves as cdktf does (`toHclTerraform` is not touched).
 */
export function synthesizeOnce(app: App, stacks: TerraformStack[], hcl: boolean): void {
  const patched: TerraformElement[] = [];
  try {
    withLeanResolve(() => {
      for (const stack of stacks) {
        stack.ensureBackendExists();
        for (const element of elementsOf(stack)) {
          const resolved = tokensModule.resolve(stack, element.toTerraform(), true);
          if (hcl) continue;
          Object.defineProperty(element, 'toTerraform', { value: () => resolved, configurable: true, writable: true });
          patched.push(element);
        }
      }
      const session = { outdir: app.outdir, skipValidation: app.skipValidation ?? false, manifest: app.manifest };
      for (const stack of stacks) stack.synthesizer.synthesize(session);
      if (!session.skipValidation) {
        const validations = app.node.validate();
        if (validations.length > 0) throw new Error(`Validation failed with the following errors:\n  ${validations.join('\n  ')}`);
      }
      app.manifest.writeToFile();
    });
  } finally {
    for (const element of patched) delete (element as { toTerraform?: unknown }).toTerraform;
  }
}
