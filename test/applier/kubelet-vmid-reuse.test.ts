/**
 * The kubelet player when Proxmox reuses a VM id: a remediation deletes the stopped VM and CAPMOX
 * clones the replacement, which may get the same id between two ticks. The replacement must join
 * on its own (test/twin/multi-instance.test.ts once saw the replacement on pve-b never become a
 * Node: the player kept the old VM's entry under the reused id). A fake tenant API server; the
 * tenant CA is a real certificate (the join checks its hash).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { SimVmView } from '../../sim/simulator';
import { caCertHash, computeDetachedSignature, KubeletPlayer } from '../../twin/kubelets';

const dir = mkdtempSync(join(tmpdir(), 'pvekaas-kubelet-reuse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeTenant(ca: string) {
  const nodes = new Map<string, any>();
  const token = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
  const b64 = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  // The cluster-info ConfigMap as Kamaji writes it, signed for the token as the bootstrapsigner signs it.
  const kubeconfig = `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${Buffer.from(ca).toString('base64')}\n    server: https://10.0.0.5:6443\n  name: ""\n`;
  const clusterInfo = { data: { kubeconfig, 'jws-kubeconfig-abcdef': computeDetachedSignature(kubeconfig, 'abcdef', '0123456789abcdef') } };
  const client = {
    get: async (path: string) =>
      path.endsWith('/bootstrap-token-abcdef')
        ? { status: 200, body: { data: b64(token) } }
        : path.endsWith('/configmaps/cluster-info')
          ? { status: 200, body: clusterInfo }
          : { status: 404, body: {} },
    post: async (_path: string, node: any) => {
      if (nodes.has(node.metadata.name)) return { status: 409, body: {} };
      nodes.set(node.metadata.name, node);
      return { status: 201, body: node };
    },
    request: async (_method: string, path: string, body: any) => {
      const name = decodeURIComponent(path.split('/')[4]);
      nodes.get(name).status = body.status;
      return { status: 200, body: {} };
    },
  };
  return { nodes, client };
}

function vm(uuid: string, machine: string, hash: string): SimVmView {
  const joinConfig = {
    discovery: { bootstrapToken: { apiServerEndpoint: '10.0.0.5:6443', token: 'abcdef.0123456789abcdef', caCertHashes: [hash] } },
    nodeRegistration: { name: machine },
  };
  return {
    instance: 'pve-b',
    vmid: 101,
    node: 'pve-b-1',
    template: false,
    status: 'running',
    tags: [],
    disks: [],
    cdroms: [],
    uuid,
    cloneOf: 1000,
    bootstrap: {
      userData: `## template: jinja\n#cloud-config\n${stringify({ write_files: [{ path: '/run/kubeadm/kubeadm-join-config.yaml', content: stringify(joinConfig) }] })}`,
    },
  };
}

it('a new VM under a reused VM id joins as a Node of its own; the old entry is forgotten', async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      '/CN=tenant-ca',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const hash = caCertHash(readFileSync(join(dir, 'ca.crt'), 'utf8'));
  const tenant = fakeTenant(readFileSync(join(dir, 'ca.crt'), 'utf8'));
  const kamaji = {
    planes: new Map([
      ['spread/spread', { cluster: 'spread', namespace: 'spread', endpoint: '10.0.0.5:6443', version: 'v1.35.4', server: { client: tenant.client, dir } }],
    ]),
  } as any;
  const template: SimVmView = {
    instance: 'pve-b',
    vmid: 1000,
    node: 'pve-b-1',
    template: true,
    status: 'stopped',
    tags: ['capi', 'v1.35.4'],
    disks: [],
    cdroms: [],
  };
  let vms = [template, vm('11111111-1111-4111-8111-111111111111', 'spread-pve-b-workers-old', hash)];
  const player = new KubeletPlayer(
    () => vms,
    kamaji,
    { ready: () => true, waiting: () => '' },
    () => {},
    async () => undefined,
    async () => 'v1.35.4',
  );
  await player.tick();
  expect(player.nodes.get('pve-b/101')).toMatchObject({ name: 'spread-pve-b-workers-old', ready: true });
  // Stopped, deleted and replaced between two ticks, under the same id.
  vms = [template, vm('22222222-2222-4222-8222-222222222222', 'spread-pve-b-workers-new', hash)];
  await player.tick();
  expect(player.nodes.get('pve-b/101')).toMatchObject({ name: 'spread-pve-b-workers-new', uuid: '22222222-2222-4222-8222-222222222222', ready: true });
  expect(tenant.nodes.get('spread-pve-b-workers-new')?.status?.conditions?.find((c: any) => c.type === 'Ready')?.status).toBe('True');
});
