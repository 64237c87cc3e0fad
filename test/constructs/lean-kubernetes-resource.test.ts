/**
 * The lean kubernetes_job_v1 and kubernetes_cron_job_v1 (constructs/lean-kubernetes-resource.ts)
 * write what @cdktf/provider-kubernetes's typed bindings write for the same config: the JSON byte
 * for byte and the HCL attributes, for every Job and CronJob pvekaas renders, each beside the
 * binding's resource in one stack.
 */
import { Testing, TerraformStack, type TerraformResource } from 'cdktf';
import { CronJobV1 } from '@cdktf/provider-kubernetes/lib/cron-job-v1';
import { JobV1 } from '@cdktf/provider-kubernetes/lib/job-v1';
import type { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { CapiProvidersReadyJob } from '../../constructs/capi-providers-ready-job';
import { EtcdBackupCronJob } from '../../constructs/etcd-backup-cron-job';
import { LeanKubernetesResource, terraformStruct } from '../../constructs/lean-kubernetes-resource';
import { kubernetes } from './support';

/** Every lean resource of the stack, and the binding's resource built beside it from the same config. */
function pairs(stack: TerraformStack, provider: KubernetesProvider): [LeanKubernetesResource, TerraformResource][] {
  const leans = stack.node.findAll().filter((c): c is LeanKubernetesResource => c instanceof LeanKubernetesResource);
  return leans.map((lean) => {
    const config = { ...lean.config, provider, dependsOn: lean.leanDependsOn } as never;
    const id = `${lean.node.id}-binding`;
    return [lean, lean.kind === 'kubernetes_job_v1' ? new JobV1(lean.node.scope!, id, config) : new CronJobV1(lean.node.scope!, id, config)];
  });
}

function build(stack: TerraformStack): KubernetesProvider {
  const provider = kubernetes(stack);
  new CapiProvidersReadyJob(stack, 'capi-providers-ready', {
    provider,
    namespace: 'capi-operator-system',
    kubectlImage: 'registry.example/kubectl:v9.36.1',
    timeoutMinutes: 25,
    providers: [
      { resource: 'infrastructureproviders', name: 'proxmox', namespace: 'capmox-system', version: 'v9.0.2' },
      { resource: 'coreproviders', name: 'cluster-api', namespace: 'capi-system', version: 'v9.1.3' },
      { resource: 'bootstrapproviders', name: 'kubeadm', namespace: 'capi-kubeadm-bootstrap-system', version: 'v9.1.3' },
    ],
  });
  new EtcdBackupCronJob(stack, 'datastore-backup', {
    provider,
    namespace: 'kamaji-system',
    etcdName: 'kamaji-etcd',
    clusterDomain: 'cluster.local',
    target: { schedule: '17 */4 * * *', retention: 9, s3: { endpoint: 'https://s3.lab.example', bucket: 'etcd', region: 'eu-1', prefix: 'lab/' } },
    etcdImage: 'registry.example/etcd:v9.6.1',
    rcloneImage: 'registry.example/rclone:9.71',
  });
  return provider;
}

const withoutMeta = (r: Record<string, unknown>) => {
  const { '//': _meta, ...rest } = r;
  return rest;
};

describe('the lean kubernetes_job_v1 and kubernetes_cron_job_v1', () => {
  it('write the JSON the bindings write, byte for byte, for the Job and the CronJob pvekaas renders', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 'management');
    const provider = build(stack);
    const compared = pairs(stack, provider);
    expect(compared.map(([l]) => l.kind).sort()).toEqual(['kubernetes_cron_job_v1', 'kubernetes_job_v1']);
    const json = JSON.parse(Testing.synth(stack));
    for (const [lean, binding] of compared) {
      const resources = json.resource[lean.kind];
      const ours = JSON.stringify(withoutMeta(resources[lean.friendlyUniqueId]), null, 2);
      const theirs = JSON.stringify(withoutMeta(resources[binding.friendlyUniqueId]), null, 2);
      expect(ours).toBe(theirs);
      expect(ours.length).toBeGreaterThan(1000);
    }
  });

  it('write the HCL the bindings write (synth --hcl), byte for byte', () => {
    const app = Testing.app();
    const stack = new TerraformStack(app, 'management');
    const provider = build(stack);
    const compared = pairs(stack, provider);
    const hcl = String(Testing.synthHcl(stack));
    // One resource block's body: from its header's brace to the one that closes it (the strings in
    // these resources hold balanced braces only, e.g. `{.status.installedVersion}`).
    const block = (type: string, name: string) => {
      const at = hcl.indexOf(`resource "${type}" "${name}" {`);
      expect(at).toBeGreaterThanOrEqual(0);
      const open = hcl.indexOf('{', at);
      let depth = 0;
      for (let i = open; i < hcl.length; i++) {
        depth += hcl[i] === '{' ? 1 : hcl[i] === '}' ? -1 : 0;
        if (depth === 0) return hcl.slice(open, i + 1);
      }
      throw new Error(`resource ${name} is not closed`);
    };
    for (const [lean, binding] of compared) {
      const ours = block(lean.kind, lean.friendlyUniqueId);
      expect(ours).toBe(block(lean.kind, binding.friendlyUniqueId));
      expect(ours.length).toBeGreaterThan(1000);
    }
  });

  it('orders a struct as the binding does, attributes then blocks, each by name, and keeps map keys as written', () => {
    expect(Object.keys(terraformStruct({ volumeMount: [], name: 'a', env: [], imagePullPolicy: 'IfNotPresent', args: ['x'] }))).toEqual([
      'args',
      'image_pull_policy',
      'name',
      'env',
      'volume_mount',
    ]);
    expect(terraformStruct({ labels: { 'app.kubernetes.io/name': 'x', camelKey: 'y' } })).toEqual({ labels: { 'app.kubernetes.io/name': 'x', camelKey: 'y' } });
  });

  it('refuses a nested field it does not know as a block or a map, naming where and what to do', () => {
    expect(() => terraformStruct({ spec: { template: { spec: { dnsConfig: { nameservers: ['1.1.1.1'] } } } } })).toThrow(
      'resource.spec.template.spec.dns_config: a nested value the lean writer does not know as a block or a map (add it to BLOCKS or MAPS in constructs/lean-kubernetes-resource.ts)',
    );
  });
});
