/**
 * A lab synthesized with `management.versions.clusterApi` on the second CAPI lane (toolchain.json
 * `capiNext`) from the start, in a twin of its own: the 1.13 CRDs installed, the 1.13 managers
 * started, every tenant converged as planned, every Cluster Available, the second plan empty.
 *
 * The lab: the example lab's tenant-a (1 worker) and tenant-c (2 workers, one per instance, its
 * secondary Cluster on pmox-fra).
 *
 * The move of a running lab from 1.12 to 1.13 (the operator's upgrade, no Machine replaced, the
 * storedVersions refusal, a change converging on 1.13) runs on the day-two twin after its cases:
 * test/twin/day-two.test.ts, "moving the running lab from Cluster API ...": the two suites shared
 * the example lab's tenant-a and tenant-c, and one bring-up is saved.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { capiNextLane } from '../../modules/versions';
import type { LabTwin } from '../../scripts/twin/index';
import { convergedOrThrow, crdVersions, everyClusterAvailable, printTimes, projectRoot, startTwin } from './support';

jest.setTimeout(20 * 60 * 1000);

const lane = capiNextLane()!;
const TO = lane.version;
const names = ['tenant-a', 'tenant-c'];

let twin: LabTwin;
const mgmt = () => twin.management.client;

describe(`a lab synthesized with clusterApi ${TO} in a twin of its own`, () => {
  const fresh = (() => {
    const doc = parseDocument(readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8'));
    const tenants = doc.get('tenants') as { items: { get(k: string): unknown }[] };
    tenants.items = tenants.items.filter((t) => names.includes(t.get('name') as string));
    doc.setIn(['tenants', 0, 'pools', 0, 'replicas'], 1);
    doc.setIn(['tenants', 1, 'pools', 0, 'replicas'], 2);
    doc.setIn(['management', 'versions', 'clusterApi'], TO);
    return doc.toString();
  })();
  beforeAll(
    async () => {
      twin = await startTwin(fresh, 'capi-113');
      await twin.applyKubernetes();
    },
    25 * 60 * 1000,
  );

  afterAll(async () => {
    printTimes(twin);
    await twin?.stop();
    twin?.cleanup();
  });

  it(`starts on the ${TO} CRDs and controllers and converges as planned, every Cluster Available, the second plan empty`, async () => {
    expect(twin.controllerVersions()).toMatchObject({ 'capi-manager': TO, 'kubeadm-bootstrap-manager': TO });
    expect(await crdVersions(twin, 'machines.cluster.x-k8s.io')).toEqual({ versions: ['v1beta1', 'v1beta2'], stored: ['v1beta2'] });
    const converged = await convergedOrThrow(twin, names, 10 * 60 * 1000);
    for (const t of converged) expect({ tenant: t.name, notAsPlanned: t.notAsPlanned }).toEqual({ tenant: t.name, notAsPlanned: [] });
    expect(await everyClusterAvailable(twin, names)).toEqual([]);
    expect(await twin.secondPlan(['management', 'management-config', ...names.map((n) => `tenant-${n}`)])).toEqual([]);
    const core = await mgmt().get('/apis/operator.cluster.x-k8s.io/v1alpha2/namespaces/capi-system/coreproviders/cluster-api');
    expect(core.body?.status?.installedVersion).toBe(TO);
  });
});
