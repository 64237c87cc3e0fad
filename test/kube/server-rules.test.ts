/**
 * Bad paths: a lab description whose objects the API server would refuse is refused by pvekaas at
 * synth, with the path of the field, instead of by the server at apply (or later, when CAPI's
 * topology controller creates the tenant's machine templates). Each case shows both halves against
 * the real server: the objects rendered from the bad description are refused, and `synth` refuses
 * the description. A property test then tries many descriptions the schema accepts: each one is
 * either refused by pvekaas or accepted whole by the server. The rules pvekaas was missing live in
 * modules/config/server-rules.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { formatPath } from '../../modules/config/problems';
import { labSchema, type Lab } from '../../modules/config/schema';
import { checkServerRules, INT32_MAX } from '../../modules/config/server-rules';
import { describeObject, startKubeServer, type KubeObject, type KubeServer } from '../support/kube-apiserver';
import { compileProject, projectRoot } from '../support/toolchain';
import { started, tearDown } from '../support/lifecycle';
import { tenantObjects, withProposalFields, type ServerBoundObject } from './tenant-objects';

const exampleText = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');

/** The example lab's YAML document with a change (before any validation). */
function exampleWith(change: (doc: any) => void): any {
  const doc = parse(exampleText);
  change(doc);
  return doc;
}

/** Schema only: the lab as the renderers would see it if the cross-field rules let it through. */
function schemaOnly(doc: any): Lab {
  return labSchema.parse(doc);
}

let server: KubeServer | undefined;
let work: string;
let namespaceCount = 0;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pvekaas-server-rules-'));
  compileProject();
  server = await startKubeServer({ transformCrd: withProposalFields });
}, 300000);

afterAll(() => tearDown(work, server), 60000);

const requireServer = (): KubeServer => started(server);

/**
 * What the server says to a tenant's objects: the namespace by server-side dry run, everything
 * else by dry run inside a fresh namespace of its own (the tenant's namespace may still be
 * terminating from an earlier run). An empty list means the server accepts every object.
 */
async function serverRefusals(objects: ServerBoundObject[]): Promise<string[]> {
  const { client } = requireServer();
  const refusals: string[] = [];
  const scratch = `server-rules-${++namespaceCount}`;
  await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: scratch } });
  try {
    for (const { source, object } of objects) {
      const placed = object.kind === 'Namespace' ? object : { ...object, metadata: { ...object.metadata, namespace: scratch } };
      const r = await client.apply(placed, { dryRun: true });
      if (r.status !== 200 && r.status !== 201) refusals.push(`${source} ${describeObject(object)}: ${r.body?.message ?? r.text}`);
    }
  } finally {
    await client.delete(`/api/v1/namespaces/${scratch}`);
  }
  return refusals;
}

/** `synth` on a description: its exit status and what it printed. */
function synth(doc: any, name: string): { status: number; stderr: string } {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  const r = spawnSync(process.execPath, [join(projectRoot, 'dist/scripts/synth.js'), '--config', file, '--out', join(work, `${name}-out`)], {
    cwd: projectRoot,
    encoding: 'utf8',
  });
  return { status: r.status ?? -1, stderr: r.stderr };
}

function renderedObject(lab: Lab, tenant: string, kind: string, name?: string): KubeObject {
  const found = tenantObjects(lab, tenant).find((o) => o.object.kind === kind && (name === undefined || o.object.metadata.name === name));
  if (!found) throw new Error(`tenant ${tenant} renders no ${kind}${name ? ` ${name}` : ''}`);
  return structuredClone(found.object);
}

const exampleLab = () => parseLab(exampleText, 'examples/lab.yaml');

interface BadCase {
  title: string;
  change: (doc: any) => void;
  /** Where synth must point, as formatPath renders it. */
  path: string;
  /** The object the server sees for this description. */
  serverObject: () => KubeObject;
  /** What the server says about it. */
  serverSays: RegExp;
}

const cases: BadCase[] = [
  {
    title: 'a pool memory that is not a multiple of 8 MiB (CAPMOX multipleOf)',
    change: (d) => (d.tenants[0].pools[0].size.memoryMiB = 8196),
    path: 'tenants[0].pools[0].size.memoryMiB',
    serverObject: () => {
      const t = renderedObject(exampleLab(), 'tenant-a', 'ProxmoxMachineTemplate') as any;
      t.spec.template.spec.memoryMiB = 8196;
      return t;
    },
    serverSays: /spec\.template\.spec\.memoryMiB: Invalid value: 8196: .*should be a multiple of 8/,
  },
  {
    title: 'a pool disk under the 5 GiB CAPMOX boot volume minimum',
    change: (d) => (d.tenants[0].pools[0].size.diskGiB = 4),
    path: 'tenants[0].pools[0].size.diskGiB',
    serverObject: () => {
      const t = renderedObject(exampleLab(), 'tenant-a', 'ProxmoxMachineTemplate') as any;
      t.spec.template.spec.disks.bootVolume.sizeGb = 4;
      return t;
    },
    serverSays: /bootVolume\.sizeGb: Invalid value: 4: .*should be greater than or equal to 5/,
  },
  {
    title: 'an instance template with neither templateID nor templateSelector (CAPMOX CEL rule)',
    change: (d) => (d.proxmox.instances[0].template = { sourceNode: 'pmox-txl-1' }),
    path: 'proxmox.instances[0].template',
    serverObject: () => {
      const t = renderedObject(exampleLab(), 'tenant-a', 'ProxmoxMachineTemplate') as any;
      delete t.spec.template.spec.templateID;
      return t;
    },
    serverSays: /Must specify either templateID or templateSelector/,
  },
  {
    title: 'a tenant name longer than a namespace name may be',
    change: (d) => (d.tenants[0].name = `tenant-${'a'.repeat(60)}`),
    path: 'tenants[0].name',
    serverObject: () => ({ ...renderedObject(exampleLab(), 'tenant-a', 'Namespace'), metadata: { name: `tenant-${'a'.repeat(60)}` } }),
    serverSays: /must be no more than 63 characters/,
  },
  {
    title: 'a tag listed twice in an instance templateSelector (CAPMOX matchTags is a set)',
    change: (d) => (d.proxmox.instances[1].template.templateSelector.matchTags = ['capi', 'capi', 'v1.35.4']),
    path: 'proxmox.instances[1].template.templateSelector.matchTags[1]',
    serverObject: () => {
      // Tags reach the machine template where CAPMOX selects by them: on shared disks (on local ones
      // every machine deployment names its node's template by id, B2).
      const lab = schemaOnly(
        exampleWith((d) => {
          d.proxmox.instances[1].template.templateSelector.matchTags = ['capi', 'capi', 'v1.35.4'];
          d.proxmox.instances[1].storage = { disksShared: true };
          d.proxmox.instances[1].images[0].nodes = ['pmox-fra-1'];
          // tenant-c's pmox-fra machines in the class's topology (the proposal rendering), where the tags land.
          d.capmox.multiInstance = 'proposal';
          delete d.tenants[2].networks;
        }),
      );
      return tenantObjects(lab, 'tenant-c').find((o) => o.object.kind === 'ProxmoxMachineTemplate' && JSON.stringify(o.object).includes('"capi","capi"'))!
        .object;
    },
    serverSays: /templateSelector\.matchTags: duplicate entries for key \[="capi"\]/,
  },
  {
    title: 'a DNS server listed twice (CAPMOX dnsServers is a set)',
    change: (d) => (d.tenants[0].network.dnsServers = ['10.10.1.1', '10.10.1.1']),
    path: 'tenants[0].network.dnsServers[1]',
    serverObject: () =>
      renderedObject(schemaOnly(exampleWith((d) => (d.tenants[0].network.dnsServers = ['10.10.1.1', '10.10.1.1']))), 'tenant-a', 'ProxmoxCluster'),
    serverSays: /\.spec\.dnsServers: duplicate entries for key \[="10\.10\.1\.1"\]/,
  },
  {
    title: 'a Proxmox node name that is not a valid label value (CAPI labels the machine deployments with it)',
    change: (d) => {
      d.proxmox.instances[0].nodes[0].name = 'pmox txl 1';
      d.proxmox.instances[0].template.sourceNode = 'pmox txl 1';
    },
    path: 'proxmox.instances[0].nodes[0].name',
    serverObject: () => {
      const lab = schemaOnly(
        exampleWith((d) => {
          d.proxmox.instances[0].nodes[0].name = 'pmox txl 1';
          d.proxmox.instances[0].template.sourceNode = 'pmox txl 1';
        }),
      );
      return tenantObjects(lab, 'tenant-a').find((o) => o.object.kind === 'MachineDeployment' && JSON.stringify(o.object).includes('pmox txl 1'))!.object;
    },
    serverSays: /metadata\.labels: Invalid value: "pmox txl 1"/,
  },
  {
    title: 'more control-plane replicas than a 32-bit number holds (KamajiControlPlane scale subresource)',
    change: (d) => (d.tenants[0].controlPlane = { replicas: INT32_MAX + 1 }),
    path: 'tenants[0].controlPlane.replicas',
    serverObject: () =>
      renderedObject(schemaOnly(exampleWith((d) => (d.tenants[0].controlPlane = { replicas: INT32_MAX + 1 }))), 'tenant-a', 'KamajiControlPlane'),
    serverSays: /spec\.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647/,
  },
];

describe('descriptions the API server would refuse', () => {
  it('the example lab: the server accepts every object of every tenant, and what CAPI creates from them', async () => {
    const lab = exampleLab();
    expect(checkServerRules(lab)).toEqual([]);
    const refusals: string[] = [];
    for (const tenant of lab.tenants) refusals.push(...(await serverRefusals(tenantObjects(lab, tenant.name))));
    expect(refusals).toEqual([]);
  }, 60000);

  describe.each(cases)('$title', ({ change, path, serverObject, serverSays }) => {
    it('the server refuses what it would render', async () => {
      const { client } = requireServer();
      const object = serverObject();
      const scratch = `server-rules-${++namespaceCount}`;
      await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: scratch } });
      const placed = object.kind === 'Namespace' ? object : { ...object, metadata: { ...object.metadata, namespace: scratch } };
      const r = await client.apply(placed, { dryRun: true });
      await client.delete(`/api/v1/namespaces/${scratch}`);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.body.message).toMatch(serverSays);
    });

    it(`synth refuses the description at ${path}`, () => {
      const r = synth(exampleWith(change), path.replace(/[^a-z0-9]+/gi, '-'));
      expect(r.stderr).toContain(`  ${path}: `);
      expect(r.status).toBe(1);
    });
  });

  it('checkServerRules points at the field, with the value and a fix', () => {
    const lab = schemaOnly(
      exampleWith((d) => {
        d.tenants[1].network.dnsServers = ['10.10.2.1', '10.10.2.2', '10.10.2.1'];
        d.proxmox.instances[1].nodes[2].name = `pmox-fra-${'3'.repeat(60)}`;
      }),
    );
    const problems = checkServerRules(lab);
    expect(problems.map((p) => [formatPath(p.path), p.value])).toEqual([
      ['proxmox.instances[1].nodes[2].name', `pmox-fra-${'3'.repeat(60)}`],
      ['tenants[1].network.dnsServers[2]', '10.10.2.1'],
    ]);
    for (const p of problems) expect(p.fix).toBeTruthy();
  });

  it('checkServerRules copes with a description that failed the schema', () => {
    expect(() =>
      checkServerRules({ proxmox: { instances: [{ nodes: [{}], template: { templateSelector: {} } }, null] }, tenants: [{ network: 5 }, {}] } as any),
    ).not.toThrow();
    expect(checkServerRules({} as any)).toEqual([]);
  });
});

describe('descriptions the schema accepts', () => {
  // Mostly what a lab would hold, sometimes what a typo makes of it.
  const hostname = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/);
  const nodeName = fc.oneof({ weight: 3, arbitrary: hostname }, { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9][-A-Za-z0-9_. ]{0,70}$/) });
  const tags = fc.oneof(
    { weight: 3, arbitrary: fc.constant(['capi', 'v1.35.4']) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom('capi', 'v1.35.4', 'Capi'), { minLength: 1, maxLength: 4 }) },
  );
  const dnsServers = fc.oneof(
    { weight: 3, arbitrary: fc.uniqueArray(fc.constantFrom('10.10.1.2', '10.10.1.3', '10.10.1.4'), { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom('10.10.1.2', '10.10.1.3'), { minLength: 1, maxLength: 3 }) },
  );
  const replicas = fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 5 }) },
    { weight: 1, arbitrary: fc.integer({ min: INT32_MAX - 1, max: INT32_MAX + 10 }) },
  );

  it('are either refused by pvekaas at synth, or accepted whole by the server', async () => {
    let checkedByServer = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({ node: nodeName, tags, dnsServers, controlPlaneReplicas: replicas, poolName: fc.stringMatching(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/) }),
        async (v) => {
          const doc = exampleWith((d) => {
            d.proxmox.instances[0].nodes[1].name = v.node;
            d.proxmox.instances[1].template.templateSelector.matchTags = v.tags;
            d.tenants[0].network.dnsServers = v.dnsServers;
            d.tenants[0].controlPlane = { replicas: v.controlPlaneReplicas };
            d.tenants[1].pools[0].name = v.poolName;
          });
          let lab: Lab;
          try {
            lab = parseLab(stringify(doc), 'property.yaml');
          } catch {
            return; // refused at synth
          }
          if (checkServerRules(lab).length > 0) return; // refused at synth (once parseLab runs the server rules)
          const objects: ServerBoundObject[] = [];
          try {
            for (const tenant of lab.tenants) objects.push(...tenantObjects(lab, tenant.name));
          } catch {
            return; // the tenant rendering refused it at synth
          }
          checkedByServer++;
          const refusals = await serverRefusals(objects);
          if (refusals.length > 0) throw new Error(`pvekaas accepts ${JSON.stringify(v)} but the server refuses:\n${refusals.join('\n')}`);
        },
      ),
      // About a third of the runs pass every synth check (typo tags leave an instance without a
      // template for the version, which is refused): 60 runs give well over 10 server checks.
      { numRuns: 60 },
    );
    // Otherwise the property would hold only because pvekaas refused everything.
    expect(checkedByServer).toBeGreaterThanOrEqual(10);
  }, 180000);
});
