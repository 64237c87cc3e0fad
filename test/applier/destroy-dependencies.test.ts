/**
 * What the twin records as a resource's dependencies for its destroy walk (twin/stack-objects.ts
 * `resourceDependencies`), as OpenTofu records them in state: `depends_on` and every managed resource a
 * `${...}` expression references; never a data source, a variable or the resource itself. Read from
 * a synthesized tenant stack of the example lab, so the shapes are the ones pvekaas renders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStack, resourceDependencies, type StackContents } from '../../twin/stack-objects';
import { synthesizeLab } from '../../scripts/lib/synthesize';

let out: string;
let stack: StackContents;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'pvekaas-destroy-deps-'));
  synthesizeLab({ config: 'examples/lab.yaml', out });
  stack = readStack(out, 'tenant-tenant-c');
}, 120000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const address = (prefix: string) => {
  const found = stack.objects.map((o) => o.address).find((a) => a.startsWith(prefix));
  if (!found) throw new Error(`no resource ${prefix}* in tenant-tenant-c`);
  return found;
};

describe('the dependencies a destroy walks (tenant-c of the example lab)', () => {
  it("records depends_on: a secondary Cluster goes before its control plane and infrastructure cluster, the primary after both secondaries' parts", () => {
    const secondary = address('kubernetes_manifest.secondaries_pmox-fra-cluster_');
    expect(resourceDependencies(stack, secondary)).toEqual(
      [address('kubernetes_manifest.secondaries_pmox-fra-control-plane_'), address('kubernetes_manifest.secondaries_pmox-fra-proxmox-cluster_')].sort(),
    );
    const primary = address('kubernetes_manifest.cluster_');
    expect(resourceDependencies(stack, address('kubernetes_manifest.secondaries_pmox-fra-control-plane_'))).toContain(primary);
    expect(resourceDependencies(stack, primary)).toContain('kubernetes_manifest.namespace');
  });

  it('adds a managed resource an expression references, and never a data source or the resource itself', () => {
    const copy = address('kubernetes_secret_v1.credentials-pmox-fra_copy_');
    // The copy reads the source Secret through a data source: no managed dependency from it.
    expect(JSON.stringify(stack.config.resource.kubernetes_secret_v1[copy.split('.')[1]])).toContain('${data.kubernetes_secret_v1.');
    expect(resourceDependencies(stack, copy)).toEqual(['kubernetes_manifest.namespace']);
    // A reference added to a copy of the stack counts like depends_on.
    const edited = structuredClone(stack);
    const [type, name] = address('kubernetes_manifest.access_role_').split('.');
    edited.config.resource[type][name].manifest.metadata.labels = {
      owner: `\${${address('kubernetes_manifest.cluster_')}.object.metadata.name}`,
      self: `\${${type}.${name}.id}`,
    };
    delete edited.config.resource[type][name].depends_on;
    expect(resourceDependencies(edited, `${type}.${name}`)).toEqual([address('kubernetes_manifest.cluster_')]);
  });
});
