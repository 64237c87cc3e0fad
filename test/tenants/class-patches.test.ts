/**
 * The one interpreter of the class's patches (modules/tenants/class-patches.ts) against CAPI's own
 * rules for them (test/support/go-template.ts: Go text/template with sprig, then YAML, as CAPI
 * v1.12's inline patch generator reads them) — not against a copy of itself. Every condition and
 * value template of the class, for variables drawn from the class's variable schemas.
 */
import fc from 'fast-check';
import { enabled, templateValue, type Variables } from '../../modules/tenants/class-patches';
import { clusterClass } from '../../modules/tenants/cluster-class';
import { capiPatchEnabled, capiTemplateValue, renderGoTemplate } from '../support/go-template';
import { templatesOf } from './topology';

const theClass = clusterClass({ dataStoreName: 'default', multiInstance: 'proposal', identity: true });
const { conditions, values } = templatesOf(theClass);
/** Each patch's condition and value templates (CAPI renders a patch's values only when it is enabled). */
const patches = (theClass.spec as { patches: { enabledIf?: string }[] }).patches.map((p) => ({
  enabledIf: p.enabledIf,
  values: templatesOf({ spec: { patches: [p] } }).values,
}));

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const ip = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
const version = fc.tuple(fc.nat(40), fc.nat(20)).map(([minor, patch]) => `v1.${minor}.${patch}`);
const tag = fc.stringMatching(/^[a-z0-9][a-z0-9_.+-]{0,10}$/);

/** Variables as the class's schemas admit them (optional ones absent or set), plus CAPI's builtins. */
const variables: fc.Arbitrary<Variables> = fc.record(
  {
    controlPlaneVIP: ip,
    dnsServiceIP: ip,
    vlan: fc.integer({ min: 1, max: 4094 }),
    workerSize: fc.record({
      cpu: fc.integer({ min: 1, max: 64 }),
      memoryMiB: fc.integer({ min: 8, max: 1 << 20 }),
      diskGiB: fc.integer({ min: 5, max: 2000 }),
    }),
    proxmoxTemplate: fc.oneof(
      fc.record({ sourceNode: name, templateID: fc.integer({ min: 100, max: 999999999 }) }),
      fc.record({ matchTags: fc.array(tag, { maxLength: 4 }), appendVersionTag: fc.boolean() }, { requiredKeys: ['matchTags'] }),
    ),
    proxmoxAvailabilityZones: fc.array(fc.record({ name, nodes: fc.array(name, { minLength: 1, maxLength: 3 }), credentialsRef: fc.record({ name }) }), {
      maxLength: 3,
    }),
    tenantAuthentication: fc.record({ configMap: name }),
    builtin: fc.record({
      cluster: fc.record({ name, namespace: name }),
      machineDeployment: fc.record({ version, class: name, topologyName: name, name }),
    }),
  },
  { requiredKeys: ['controlPlaneVIP', 'dnsServiceIP', 'proxmoxTemplate', 'builtin'] },
);

/** The first variables (if any) for which an interpreter disagrees with CAPI's reading. */
function disagreement(readCondition: typeof enabled, readValue: typeof templateValue): string | undefined {
  const result = fc.check(
    fc.property(variables, (vars) => {
      for (const patch of patches) {
        const on = capiPatchEnabled(patch.enabledIf, vars);
        if (readCondition(patch.enabledIf, vars) !== on) return false;
        if (on) for (const t of patch.values) expect(readValue(t, vars)).toEqual(capiTemplateValue(t, vars));
      }
      return true;
    }),
    { numRuns: 300, seed: 23 },
  );
  return result.failed ? JSON.stringify(result.counterexample) : undefined;
}

describe('the class-patch interpreter against CAPI v1.12 template rules', () => {
  it('the class has conditions and value templates to check', () => {
    expect(conditions.length).toBeGreaterThanOrEqual(5);
    expect(values.length).toBeGreaterThanOrEqual(4);
  });

  it('reads every enabledIf and valueFrom.template of the class as CAPI does, for any variables the schemas admit', () => {
    expect(disagreement(enabled, templateValue)).toBeUndefined();
  });

  it('the oracle is Go text/template: missing keys, `not`, `default list`, `append`, `toJson`, else', () => {
    const t = '{{ if .p.append }}{{ append (default list .p.tags) .v | toJson }}{{ else }}{{ .p.tags | toJson }}{{ end }}';
    expect(renderGoTemplate(t, { p: { append: true }, v: 'v1.2.3' })).toBe('["v1.2.3"]');
    expect(renderGoTemplate(t, { p: { append: true, tags: ['a'] }, v: 'v1.2.3' })).toBe('["a","v1.2.3"]');
    expect(renderGoTemplate(t, { p: { tags: ['a'] } })).toBe('["a"]');
    expect(renderGoTemplate('{{ if not .a.b }}true{{ end }}', {})).toBe('true');
    expect(renderGoTemplate('x: "{{ .missing }}"', {})).toBe('x: "<no value>"');
    expect(() => renderGoTemplate('{{ .a.b }}', { a: null })).toThrow(/nil pointer evaluating/);
    expect(() => renderGoTemplate('{{ range .a }}{{ end }}', {})).toThrow(/not supported/);
    expect(capiPatchEnabled('{{ if .x }}true{{ end }}', { x: 0 })).toBe(false);
    expect(capiPatchEnabled('{{ if .x }}yes{{ end }}', { x: 1 })).toBe(true); // YAML 1.1 (go.yaml.in/yaml/v2): yes is true
  });

  // Mutations: a wrong reading of the class's templates is caught by the comparison.
  it.each([
    ['`not` ignored', (c: string | undefined, v: Variables) => enabled(c?.replace('if not ', 'if '), v), templateValue],
    ['every condition holds', () => true, templateValue],
    [
      'the version tag put first',
      enabled,
      (t: string, v: Variables) => {
        const r = templateValue(t, v);
        return t.includes('append') && Array.isArray(r) && r.length > 1 ? [r[r.length - 1], ...r.slice(0, -1)] : r;
      },
    ],
    ['dnsServiceIPs as a string', enabled, (t: string, v: Variables) => (t.includes('dnsServiceIP') ? v.dnsServiceIP : templateValue(t, v))],
    [
      'the VIP annotation without its value',
      enabled,
      (t: string, v: Variables) => (t.includes('controlPlaneVIP') ? { 'metallb.io/loadBalancerIPs': '' } : templateValue(t, v)),
    ],
    [
      'the spread on the namespace',
      enabled,
      (t: string, v: Variables) =>
        t.includes('kamaji.clastix.io/name')
          ? templateValue(t, {
              ...v,
              builtin: { ...(v.builtin as object), cluster: { name: (v.builtin as { cluster: { namespace: string } }).cluster.namespace } },
            })
          : templateValue(t, v),
    ],
  ] as [string, typeof enabled, typeof templateValue][])('a wrong reading is caught: %s', (_what, readCondition, readValue) => {
    let caught: string | undefined;
    try {
      caught = disagreement(readCondition, readValue);
    } catch (e) {
      caught = String(e);
    }
    expect(caught).toBeDefined();
  });
});
