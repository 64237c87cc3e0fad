/**
 * The lab twin's run of the management stack's providers-ready Job (twin/providers-ready.ts)
 * on a real API server: its ServiceAccount, ClusterRole and binding as the stack renders them, its
 * `kubectl wait` containers with that ServiceAccount's token, against provider objects reported
 * installed only at the versions the twin runs. A ClusterRole missing a resource, or a provider
 * version the twin does not run, fails the Job.
 */
import { load } from 'js-yaml';
import { deployedProviders } from '../../twin/controllers';
import { runProvidersReady, twinProviders } from '../../twin/providers-ready';
import { readStack, type StackContents } from '../../twin/stack-objects';
import { exampleLab, synthesize, type Synthesized } from '../management/synth';
import { startKubeServer, type KubeServer } from '../support/kube-apiserver';
import { started, tearDown } from '../support/lifecycle';
import { join } from 'node:path';

const root = join(__dirname, '../..');
let server: KubeServer | undefined;
let synth: Synthesized | undefined;
let operatorValues: Record<string, any> = {};

beforeAll(async () => {
  synth = synthesize(exampleLab());
  server = await startKubeServer({ controllerManager: false });
  const { client } = started(server);
  const management = readStack(synth.dir, 'management');
  const operator = Object.values(management.config.resource.helm_release as Record<string, any>).find((r) => r.chart === 'cluster-api-operator');
  operatorValues = load(operator.values[0]) as Record<string, any>;
  const namespaces = new Set<string>([operator.namespace]);
  for (const section of Object.values(operatorValues))
    for (const p of Object.values((section ?? {}) as Record<string, any>)) if (p?.namespace) namespaces.add(p.namespace);
  for (const name of namespaces) await client.applyOrThrow({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}, 300000);
afterAll(async () => {
  synth?.cleanup();
  await tearDown(undefined, server);
}, 60000);

function stack(edit?: (s: StackContents) => void): StackContents {
  const s = readStack(synth!.dir, 'management');
  edit?.(s);
  return s;
}

describe('the providers-ready Job, run as its ServiceAccount', () => {
  it('completes when every provider reports the version the twin runs', async () => {
    const { client } = started(server);
    const run = await runProvidersReady(client, server!.kubeconfig, root, stack(), operatorValues, twinProviders(deployedProviders(operatorValues)));
    expect(run?.reason).toBeUndefined();
    expect(run?.ok).toBe(true);
    expect(run!.containers.length).toBeGreaterThanOrEqual(6);
  }, 120000);

  it('fails with a ClusterRole that cannot read the core provider', async () => {
    const { client } = started(server);
    const s = stack((m) => {
      const role = Object.values(m.config.resource.kubernetes_cluster_role_v1 as Record<string, any>)[0];
      role.rule[0].resources = role.rule[0].resources.filter((r: string) => r !== 'coreproviders');
    });
    const run = await runProvidersReady(client, server!.kubeconfig, root, s, operatorValues, twinProviders(deployedProviders(operatorValues)));
    expect(run?.ok).toBe(false);
    expect(run?.reason).toMatch(/Forbidden.*coreproviders/);
  }, 120000);

  it('fails when a provider is not at the version the Job waits for', async () => {
    const { client } = started(server);
    const running = { ...twinProviders(deployedProviders(operatorValues)), 'infrastructure/proxmox': 'v0.8.0' };
    const run = await runProvidersReady(client, server!.kubeconfig, root, stack(), operatorValues, running);
    expect(run?.ok).toBe(false);
    expect(run?.reason).toMatch(/timed out waiting for the condition on infrastructureproviders\/proxmox/);
  }, 120000);
});
