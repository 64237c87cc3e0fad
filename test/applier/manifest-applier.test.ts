/**
 * The twin's `kubernetes_manifest` applier (twin/manifest-applier.ts, manifest-types.ts):
 * hashicorp/kubernetes 2.38.0's plan, apply, wait and delete, and OpenTofu's consistency check, on
 * a fake API server whose "webhooks" change what is applied and a fake clock (no toolchain needed).
 * The types are the ones the provider builds from a CRD schema: the MachineDeployment schema below
 * is the part of CAPI v1.13.6's `cluster.x-k8s.io_machinedeployments.yaml` (v1beta2; v1.12.10's is the same there) these tests
 * touch, with its maps (`additionalProperties`) and objects (`properties`) as there.
 */
import {
  ApplyError,
  goDuration,
  ManifestApplier,
  manifestResource,
  sendLikeClientGo,
  type AppliedState,
  type Clock,
  type KubeClientLike,
  type KubeResponseLike,
  type ManifestResource,
} from '../../twin/manifest-applier';
import {
  assertCompatible,
  computedPaths,
  parseFieldPath,
  planObject,
  typedLive,
  typeFromSchema,
  resourceType,
  type OpenApiSchema,
  type TfType,
} from '../../twin/manifest-types';
import { autoscaledSecondaryLab, renderedManifests } from './secondary-fixture';

const str: OpenApiSchema = { type: 'string' };
const labels: OpenApiSchema = { type: 'object', additionalProperties: str };
const objectMeta: OpenApiSchema = {
  type: 'object',
  properties: {
    name: str,
    namespace: str,
    labels,
    annotations: labels,
    finalizers: { type: 'array', items: str },
    uid: str,
    resourceVersion: str,
    generation: { type: 'integer' },
    creationTimestamp: str,
  },
};
const machineDeployment: OpenApiSchema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        clusterName: str,
        replicas: { type: 'integer' },
        selector: {
          type: 'object',
          properties: {
            matchLabels: labels,
            matchExpressions: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, values: { type: 'array', items: str } } } },
          },
        },
        rollout: {
          type: 'object',
          properties: {
            strategy: {
              type: 'object',
              properties: {
                type: str,
                rollingUpdate: {
                  type: 'object',
                  properties: { maxSurge: { 'x-kubernetes-int-or-string': true }, maxUnavailable: { 'x-kubernetes-int-or-string': true } },
                },
              },
            },
          },
        },
        template: {
          type: 'object',
          properties: {
            metadata: { type: 'object', properties: { labels, annotations: labels } },
            spec: {
              type: 'object',
              properties: {
                clusterName: str,
                version: str,
                bootstrap: { type: 'object', properties: { configRef: { type: 'object', properties: { apiGroup: str, kind: str, name: str } } } },
                infrastructureRef: { type: 'object', properties: { apiGroup: str, kind: str, name: str } },
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        conditions: { type: 'array', items: { type: 'object', properties: { type: str, status: str, reason: str } } },
        phase: str,
        replicas: { type: 'integer' },
      },
    },
  },
};
const meta = typeFromSchema(objectMeta);
const types = {
  typeOf: async (_apiVersion: string, _kind: string, withStatus = false): Promise<TfType> => resourceType(typeFromSchema(machineDeployment), meta, withStatus),
};

type Obj = Record<string, any>;

/** A fake API server: server-side apply as a merge (maps merged, lists replaced), a mutating hook, finalizers. */
class FakeServer implements KubeClientLike {
  readonly objects = new Map<string, Obj>();
  readonly requests: { method: string; path: string; body?: unknown }[] = [];
  conflict?: string;
  /** The next `busy` writes are answered `busyAnswer` (429 with Retry-After: API Priority and Fairness throttling). */
  busy = 0;
  busyAnswer: KubeResponseLike = { status: 429, body: { status: 'Failure', message: 'Too many requests, please try again later.' }, text: '', retryAfter: 1 };
  constructor(private readonly mutate: (o: Obj, update: boolean) => void = () => {}) {}
  async objectPath(o: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): Promise<string> {
    return `/apis/${o.apiVersion}/namespaces/${o.metadata.namespace}/${o.kind.toLowerCase()}s/${o.metadata.name}`;
  }
  async get(path: string): Promise<KubeResponseLike> {
    const o = this.objects.get(path);
    return o ? { status: 200, body: structuredClone(o), text: '' } : { status: 404, body: { message: 'not found' }, text: '' };
  }
  async request(method: string, path: string, body?: unknown): Promise<KubeResponseLike> {
    const bare = path.split('?')[0];
    this.requests.push({ method, path, body });
    if (method !== 'GET' && this.busy > 0) {
      this.busy--;
      return structuredClone(this.busyAnswer);
    }
    if (method === 'PATCH') {
      if (this.conflict) return { status: 409, body: { status: 'Failure', message: this.conflict }, text: '' };
      const old = this.objects.get(bare);
      const merged = merge(structuredClone(old ?? {}), structuredClone(body as Obj));
      this.mutate(merged, old !== undefined);
      merged.metadata.uid ??= 'uid-1';
      merged.metadata.resourceVersion = String(Number(merged.metadata.resourceVersion ?? 0) + 1);
      merged.metadata.managedFields = [{ manager: 'x' }];
      this.objects.set(bare, merged);
      return { status: old ? 200 : 201, body: structuredClone(merged), text: '' };
    }
    if (method === 'DELETE') {
      const o = this.objects.get(bare);
      if (!o) return { status: 404, body: { message: 'not found' }, text: '' };
      if ((o.metadata.finalizers ?? []).length > 0) o.metadata.deletionTimestamp = 'now';
      else this.objects.delete(bare);
      return { status: 200, body: {}, text: '' };
    }
    return this.get(bare);
  }
}

function merge(into: Obj, from: Obj): Obj {
  for (const [k, v] of Object.entries(from)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && into[k] && typeof into[k] === 'object' && !Array.isArray(into[k])) merge(into[k], v);
    else into[k] = v;
  }
  return into;
}

/** A clock that only moves when the applier sleeps; `onSleep` lets "controllers" act in between. */
class FakeClock implements Clock {
  t = 0;
  constructor(private readonly onSleep: (now: number) => void = () => {}) {}
  now() {
    return this.t;
  }
  async sleep(ms: number) {
    this.t += ms;
    this.onSleep(this.t);
  }
}

/** CAPI v1.13.6 internal/webhooks/machinedeployment.go `Default` (unchanged from v1.12.10), the parts that touch what pvekaas sets. */
function capiMachineDeploymentDefaulting(o: Obj): void {
  o.metadata.labels = { ...(o.metadata.labels ?? {}), 'cluster.x-k8s.io/cluster-name': o.spec.clusterName };
  o.spec.replicas ??= 1;
  o.spec.selector ??= {};
  o.spec.selector.matchLabels = { ...(o.spec.selector.matchLabels ?? {}), 'cluster.x-k8s.io/cluster-name': o.spec.clusterName };
  o.spec.template.metadata ??= {};
  o.spec.template.metadata.labels = { ...(o.spec.template.metadata.labels ?? {}), 'cluster.x-k8s.io/cluster-name': o.spec.clusterName };
  o.spec.rollout = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } };
}

/** The MachineDeployment controller's revision annotation (internal/controllers/machinedeployment). */
function revisionAnnotation(o: Obj): void {
  o.metadata.annotations = { ...(o.metadata.annotations ?? {}), 'machinedeployment.clusters.x-k8s.io/revision': '1' };
}

function md(extra: { selector?: Record<string, string>; templateLabels?: Record<string, string>; replicas?: number } = {}): ManifestResource['manifest'] {
  const selector = extra.selector ?? { 'cluster.x-k8s.io/deployment-name': 'spread-b-workers' };
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineDeployment',
    metadata: { name: 'spread-b-workers', namespace: 'spread', labels: { 'cluster.x-k8s.io/cluster-name': 'spread-b' } },
    spec: {
      clusterName: 'spread-b',
      ...(extra.replicas !== undefined ? { replicas: extra.replicas } : {}),
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: extra.templateLabels ?? selector },
        spec: {
          clusterName: 'spread-b',
          version: 'v1.35.4',
          bootstrap: { configRef: { apiGroup: 'bootstrap.cluster.x-k8s.io', kind: 'KubeadmConfigTemplate', name: 'b' } },
          infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'ProxmoxMachineTemplate', name: 'm' },
        },
      },
    },
  };
}

const resource = (manifest: ManifestResource['manifest'], config: Record<string, unknown> = {}) =>
  manifestResource('kubernetes_manifest.md', { field_manager: { name: 'pvekaas' }, ...config }, manifest);

async function applyError(p: Promise<unknown>): Promise<ApplyError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApplyError) return e;
    throw e;
  }
  throw new Error('applied without an error');
}

describe("the consistency check after apply (OpenTofu objchange.AssertObjectCompatible on the provider's planned object)", () => {
  it("fails a MachineDeployment whose selector and template labels lack what CAPI's webhook adds, with OpenTofu's text (the old secondary rendering)", async () => {
    const server = new FakeServer((o) => capiMachineDeploymentDefaulting(o));
    const applier = new ManifestApplier(server, new FakeClock(), types);
    const e = await applyError(applier.apply(resource(md({ replicas: 1 }))));
    expect(e.summary).toBe('Provider produced inconsistent result after apply');
    expect(e.detail).toContain(
      'When applying changes to kubernetes_manifest.md, provider "provider[\\"registry.opentofu.org/hashicorp/kubernetes\\"]" produced an unexpected new value: .object.spec.selector.matchLabels: new element "cluster.x-k8s.io/cluster-name" has appeared.',
    );
    expect(e.detail).toContain('.object.spec.template.metadata.labels: new element "cluster.x-k8s.io/cluster-name" has appeared.');
    expect(e.detail).toContain('This is a bug in the provider');
    // The object is created all the same (OpenTofu saves it tainted).
    expect(server.objects.size).toBe(1);
  });

  it('accepts the same MachineDeployment with the cluster-name label rendered in both maps, and what the webhook defaults outside them', async () => {
    const server = new FakeServer((o) => capiMachineDeploymentDefaulting(o));
    const applier = new ManifestApplier(server, new FakeClock(), types);
    const withName = { 'cluster.x-k8s.io/deployment-name': 'spread-b-workers', 'cluster.x-k8s.io/cluster-name': 'spread-b' };
    const { state, action } = await applier.apply(resource(md({ replicas: 1, selector: withName })));
    expect(action).toBe('create');
    // spec.rollout is unset in the manifest: unknown in the plan, whatever the webhook writes.
    expect((state.object.spec as Obj).rollout.strategy.type).toBe('RollingUpdate');
  });

  it("every secondary MachineDeployment pvekaas synthesizes (an autoscaled one too) passes the check against CAPI's defaulting and revision annotation", async () => {
    const mds = renderedManifests(autoscaledSecondaryLab(), 'spread', 'MachineDeployment');
    expect(mds.map((m) => m.manifest.metadata.name).sort()).toEqual([
      'spread-pve-b-burst-pve-b-1',
      'spread-pve-b-workers-pve-b-1',
      'spread-pve-c-batch-pve-c-1',
      'spread-pve-c-workers-pve-c-1',
    ]);
    expect(mds.filter((m) => m.config.computed_fields).length).toBe(1);
    for (const m of mds) {
      const server = new FakeServer((o) => {
        capiMachineDeploymentDefaulting(o);
        revisionAnnotation(o);
      });
      const applier = new ManifestApplier(server, new FakeClock(), types);
      const r = manifestResource(m.address, m.config, m.manifest as ManifestResource['manifest']);
      const { state } = await applier.apply(r);
      await expect(applier.plan(r, state)).resolves.toMatchObject({ action: 'no-op' });
    }
  });

  it('fails a value the server changes, and a list the server extends; accepts a server default inside a list element', () => {
    const type = resourceType(typeFromSchema(machineDeployment), meta);
    const manifest = md({ replicas: 2 });
    const { planned } = planObject({ manifest, type, computed: computedPaths(undefined) });
    const changed = structuredClone(manifest) as Obj;
    changed.spec.replicas = 3;
    expect(assertCompatible(planned, typedLive(changed, type))).toEqual(['.object.spec.replicas: was cty.NumberIntVal(2), but now cty.NumberIntVal(3)']);
    const withList = {
      ...structuredClone(manifest),
      spec: {
        ...(manifest.spec as Obj),
        selector: { matchLabels: (manifest.spec as Obj).selector.matchLabels, matchExpressions: [{ key: 'a', operator: 'Exists' }] },
      },
    };
    const { planned: p2 } = planObject({ manifest: withList, type, computed: computedPaths(undefined) });
    const grown = structuredClone(withList) as Obj;
    grown.spec.selector.matchExpressions.push({ key: 'b', operator: 'Exists' });
    expect(assertCompatible(p2, typedLive(grown, type))).toEqual(['.object.spec.selector.matchExpressions: new element 1 has appeared']);
    const defaulted = structuredClone(withList) as Obj;
    defaulted.spec.selector.matchExpressions[0].values = [];
    expect(assertCompatible(p2, typedLive(defaulted, type))).toEqual([]);
  });
});

describe('computed_fields', () => {
  const annotated = (o: Obj) => {
    capiMachineDeploymentDefaulting(o);
    revisionAnnotation(o);
  };
  const withName = { 'cluster.x-k8s.io/deployment-name': 'spread-b-workers', 'cluster.x-k8s.io/cluster-name': 'spread-b' };
  const annotatedMd = () => {
    const m = md({ selector: withName }) as Obj;
    m.metadata.annotations = { 'cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size': '1' };
    return m as ManifestResource['manifest'];
  };

  it("a given list replaces the default: [spec.replicas] alone leaves annotations known, and CAPI's revision annotation breaks the apply (the old autoscaled secondary)", async () => {
    const applier = new ManifestApplier(new FakeServer(annotated), new FakeClock(), types);
    const e = await applyError(applier.apply(resource(annotatedMd(), { computed_fields: ['spec.replicas'] })));
    expect(e.detail).toContain('.object.metadata.annotations: new element "machinedeployment.clusters.x-k8s.io/revision" has appeared');
  });

  it('[spec.replicas, metadata.labels, metadata.annotations] and the default both accept it', async () => {
    for (const config of [{ computed_fields: ['spec.replicas', 'metadata.labels', 'metadata.annotations'] }, {}]) {
      const applier = new ManifestApplier(new FakeServer(annotated), new FakeClock(), types);
      await expect(applier.apply(resource(annotatedMd(), config))).resolves.toMatchObject({ action: 'create' });
    }
  });

  it('parses paths as the provider does (HCL traversal), refusing splats', () => {
    expect(parseFieldPath('metadata.annotations["a.b/c"]')).toEqual([{ attr: 'metadata' }, { attr: 'annotations' }, { key: 'a.b/c' }]);
    expect(parseFieldPath('spec.ports[0].port')).toEqual([{ attr: 'spec' }, { attr: 'ports' }, { key: 0 }, { attr: 'port' }]);
    expect(() => parseFieldPath('spec.ports[*]')).toThrow(/splat is not supported/);
  });
});

describe('the second plan (what the provider would plan given the live object)', () => {
  it('is empty for an object as applied, whatever the server defaulted outside the manifest', async () => {
    const server = new FakeServer((o) => capiMachineDeploymentDefaulting(o));
    const applier = new ManifestApplier(server, new FakeClock(), types);
    const r = resource(md({ replicas: 1, selector: { 'cluster.x-k8s.io/deployment-name': 'spread-b-workers', 'cluster.x-k8s.io/cluster-name': 'spread-b' } }));
    const { state } = await applier.apply(r);
    await expect(applier.plan(r, state)).resolves.toMatchObject({ action: 'no-op', changes: [] });
    // A second apply of an unchanged resource sends nothing.
    const patches = server.requests.filter((q) => q.method === 'PATCH').length;
    await applier.apply(r, state);
    expect(server.requests.filter((q) => q.method === 'PATCH').length).toBe(patches);
  });

  it('plans an update when a controller changed a map the manifest sets, a replacement when the name changes, a create when the object is gone', async () => {
    const server = new FakeServer();
    const applier = new ManifestApplier(server, new FakeClock(), types);
    const r = resource(md({ replicas: 1 }));
    const { state } = await applier.apply(r);
    server.objects.get(state.path)!.spec.selector.matchLabels.extra = 'x';
    const plan = await applier.plan(r, state);
    expect(plan).toMatchObject({ action: 'update', changes: ['.object.spec.selector.matchLabels: new element "extra" has appeared'] });
    const renamed = structuredClone(r.manifest);
    renamed.metadata.name = 'other';
    expect((await applier.plan(resource(renamed), state)).action).toBe('replace');
    server.objects.clear();
    expect((await applier.plan(r, state)).action).toBe('create');
  });

  it("an update sends the prior object's values for what the manifest leaves unset (the provider's update payload)", async () => {
    const server = new FakeServer((o, update) => !update && capiMachineDeploymentDefaulting(o));
    const applier = new ManifestApplier(server, new FakeClock(), types);
    const labelsWithName = { 'cluster.x-k8s.io/deployment-name': 'spread-b-workers', 'cluster.x-k8s.io/cluster-name': 'spread-b' };
    const r = resource(md({ replicas: 1, selector: labelsWithName }));
    const { state } = await applier.apply(r);
    const r2 = resource(md({ replicas: 2, selector: labelsWithName }));
    await applier.apply(r2, state);
    const last = server.requests.filter((q) => q.method === 'PATCH').pop()!.body as Obj;
    expect(last.spec.replicas).toBe(2);
    expect(last.spec.rollout.strategy.type).toBe('RollingUpdate');
    expect(last.metadata.uid).toBeUndefined();
  });
});

describe('create, field manager, wait and timeouts', () => {
  it('refuses to create an object that already exists', async () => {
    const server = new FakeServer();
    const applier = new ManifestApplier(server, new FakeClock(), types);
    await applier.apply(resource(md({ replicas: 1 })));
    const e = await applyError(applier.apply(resource(md({ replicas: 1 }))));
    expect(e.summary).toBe('Cannot create resource that already exists');
    expect(e.detail).toBe('resource "spread/spread-b-workers" already exists');
  });

  it("sends the field manager and force_conflicts, and reports a conflict with the provider's text", async () => {
    const server = new FakeServer();
    const applier = new ManifestApplier(server, new FakeClock(), types);
    await applier.apply(resource(md({ replicas: 1 }), { field_manager: { name: 'pvekaas', force_conflicts: true } }));
    expect(server.requests.find((q) => q.method === 'PATCH')!.path).toMatch(/\?fieldManager=pvekaas&force=true$/);
    server.objects.clear();
    server.conflict = 'Apply failed with 1 conflict: conflict with "autoscaler": .spec.replicas';
    const e = await applyError(applier.apply(resource(md({ replicas: 1 }))));
    expect(e.summary).toBe('There was a field manager conflict when trying to apply the manifest for "spread/spread-b-workers"');
    expect(e.detail).toContain('You can override this conflict by setting "force_conflicts" to true in the "field_manager" block.');
    expect(server.requests.filter((q) => q.method === 'PATCH').pop()!.path).toMatch(/\?fieldManager=pvekaas&force=false$/);
    expect(manifestResource('a', {}, md()).fieldManager).toEqual({ name: 'Terraform', forceConflicts: false });
  });

  it('waits for a condition within timeouts.create, polling every second, and fails as the provider fails past it', async () => {
    const clock = new FakeClock();
    const server = new FakeServer();
    const applier = new ManifestApplier(server, clock, types);
    const config = { wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] }, timeouts: { create: '30s' } };
    const e = await applyError(applier.apply(resource(md({ replicas: 1 }), config)));
    expect([e.summary, e.detail]).toEqual(['Operation timed out', 'timed out waiting on conditions']);
    expect(clock.t).toBeGreaterThan(30000);
    expect(clock.t).toBeLessThanOrEqual(32000);
  });

  it('is done as soon as the condition holds (a controller writes it after 5 s)', async () => {
    const server = new FakeServer();
    const clock = new FakeClock((t) => {
      const o = [...server.objects.values()][0];
      if (o && t >= 5000)
        o.status = {
          conditions: [
            { type: 'Ready', status: 'False' },
            { type: 'ControlPlaneInitialized', status: 'True' },
          ],
        };
    });
    const applier = new ManifestApplier(server, clock, types);
    const config = { wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] }, timeouts: { create: '30m' } };
    await applier.apply(resource(md({ replicas: 1 }), config));
    expect(clock.t).toBe(5000);
  });

  it('a condition of the wrong status hangs for the whole timeout (10m by default)', async () => {
    const server = new FakeServer();
    const clock = new FakeClock(() => {
      for (const o of server.objects.values()) o.status = { conditions: [{ type: 'ControlPlaneInitialized', status: 'False' }] };
    });
    const applier = new ManifestApplier(server, clock, types);
    const e = await applyError(applier.apply(resource(md({ replicas: 1 }), { wait: { condition: [{ type: 'ControlPlaneInitialized', status: 'True' }] } })));
    expect(e.summary).toBe('Operation timed out');
    expect(clock.t).toBeGreaterThan(600000);
  });

  it('waits on fields by regular expression ("*" anything), status included', async () => {
    const server = new FakeServer();
    const clock = new FakeClock((t) => {
      for (const o of server.objects.values()) o.status = { phase: t >= 3000 ? 'Running' : 'Provisioning' };
    });
    const applier = new ManifestApplier(server, clock, types);
    await applier.apply(resource(md({ replicas: 1 }), { wait: { fields: { 'status.phase': '^Running$', 'metadata.name': '*' } } }));
    expect(clock.t).toBe(3000);
    const e = await applyError(
      new ManifestApplier(new FakeServer(), new FakeClock(), types).apply(resource(md({ replicas: 1 }), { wait: { fields: { 'spec.selector': '.*' } } })),
    );
    expect([e.summary, e.detail]).toEqual(['Error waiting for operation to complete', 'wait_for: cannot match on type object']);
  });

  it('refuses rollout on a kind without a status viewer', async () => {
    const e = await applyError(new ManifestApplier(new FakeServer(), new FakeClock(), types).apply(resource(md({ replicas: 1 }), { wait: { rollout: true } })));
    expect(e.detail).toMatch(/no status viewer has been implemented for MachineDeployment.cluster.x-k8s.io/);
  });

  it("delete waits until the object is gone, and times out on a finalizer with the provider's text", async () => {
    const server = new FakeServer();
    const clock = new FakeClock();
    const applier = new ManifestApplier(server, clock, types);
    const { state } = await applier.apply(resource(md({ replicas: 1 }), { timeouts: { delete: '1m' } }));
    server.objects.get(state.path)!.metadata.finalizers = ['cluster.x-k8s.io/machinedeployment'];
    const e = await applyError(applier.destroy(state as AppliedState));
    expect(e.summary).toBe('Timed out when waiting for resource "spread-b-workers" to be deleted');
    expect(clock.t).toBeGreaterThan(60000);
    server.objects.get(state.path)!.metadata.finalizers = [];
    server.objects.delete(state.path);
    await expect(applier.destroy(state)).resolves.toEqual(['Resource "spread-b-workers" was already deleted']);
  });

  it('parses timeouts as Go durations (one that does not parse is 0)', () => {
    expect(goDuration('30m', '10m')).toBe(1800000);
    expect(goDuration('1h30m', '10m')).toBe(5400000);
    expect(goDuration(undefined, '10m')).toBe(600000);
    expect(goDuration('30 minutes', '10m')).toBe(0);
  });
});

describe('int-or-string', () => {
  it('types an int as its string (equal to the same int from the server) and sends it back as an int', async () => {
    const server = new FakeServer((o, update) => !update && capiMachineDeploymentDefaulting(o));
    const applier = new ManifestApplier(server, new FakeClock(), types);
    const labelsWithName = { 'cluster.x-k8s.io/deployment-name': 'spread-b-workers', 'cluster.x-k8s.io/cluster-name': 'spread-b' };
    const m = md({ replicas: 1, selector: labelsWithName }) as Obj;
    m.spec.rollout = { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '0' } } };
    const { state } = await applier.apply(resource(m as ManifestResource['manifest']));
    await expect(applier.plan(resource(m as ManifestResource['manifest']), state)).resolves.toMatchObject({ action: 'no-op' });
    const m2 = structuredClone(m);
    m2.spec.replicas = 2;
    await applier.apply(resource(m2 as ManifestResource['manifest']), state);
    const sent = server.requests.filter((q) => q.method === 'PATCH').pop()!.body as Obj;
    expect(sent.spec.rollout.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
  });
});

describe("the provider's client-go retries", () => {
  const m = () => md({ replicas: 1 }) as ManifestResource['manifest'];

  it('waits out a 429 with Retry-After and sends the PATCH again, as client-go does, up to 10 times', async () => {
    const server = new FakeServer();
    const clock = new FakeClock();
    server.busy = 3;
    const { state } = await new ManifestApplier(server, clock, types).apply(resource(m()));
    expect(server.requests.filter((q) => q.method === 'PATCH')).toHaveLength(4);
    expect(clock.t).toBe(3000);
    expect(server.objects.has(state.path)).toBe(true);
    // The eleventh answer is the provider's error: client-go stopped asking.
    const again = new FakeServer();
    again.busy = 11;
    await expect(new ManifestApplier(again, new FakeClock(), types).apply(resource(m()))).rejects.toThrow(/Too many requests/);
    expect(again.requests.filter((q) => q.method === 'PATCH')).toHaveLength(11);
  });

  it('fails at once on a 500 without Retry-After (a webhook that timed out), as the provider would', async () => {
    const server = new FakeServer();
    server.busy = 1;
    server.busyAnswer = {
      status: 500,
      body: { status: 'Failure', message: 'Internal error occurred: failed calling webhook "validation.cluster.cluster.x-k8s.io": context deadline exceeded' },
      text: '',
    };
    await expect(new ManifestApplier(server, new FakeClock(), types).apply(resource(m()))).rejects.toThrow(/failed calling webhook/);
    expect(server.requests.filter((q) => q.method === 'PATCH')).toHaveLength(1);
  });

  it('asks a GET again after a connection reset, but never a write', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const reset = () => {
      calls++;
      return calls === 1 ? Promise.reject(new Error('read ECONNRESET')) : Promise.resolve({ status: 200, body: {}, text: '' });
    };
    await expect(sendLikeClientGo('GET', reset, clock)).resolves.toMatchObject({ status: 200 });
    expect({ calls, waited: clock.t }).toEqual({ calls: 2, waited: 1000 });
    calls = 0;
    await expect(sendLikeClientGo('PATCH', reset, clock)).rejects.toThrow(/ECONNRESET/);
    expect(calls).toBe(1);
  });
});
