/**
 * The secret mirror's script, run for real with sh against a stand-in kubectl that answers the
 * primary's Secrets and the secondary Cluster's uid and records what is applied: it writes exactly
 * the Secrets `mirroredSecret` describes (the CA certificate and key CABPK requires, the kubeconfig, labels, owner),
 * and stops without writing anything when the primary's Secrets are not there yet.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneStatusPatch, mirrorScript, mirroredSecret } from '../../modules/tenants/secondary-mirror';

const tenant = { name: 'tenant-c' } as any;
const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----\n').toString('base64');
const KUBECONFIG = Buffer.from('apiVersion: v1\nkind: Config\n').toString('base64');

function run(secondaries: string[], primaryReady: boolean, version = 'v1.36.3'): { status: number; applied: any[]; calls: string[]; patched: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-mirror-'));
  try {
    const kubectl = join(dir, 'kubectl');
    writeFileSync(
      kubectl,
      [
        '#!/bin/sh',
        `echo "$*" >> "${dir}/calls"`,
        'case "$*" in',
        `  *"get secret tenant-c-ca "*) ${primaryReady ? `printf %s '${CA}'` : 'echo "not found" >&2; exit 1'} ;;`,
        `  *"get secret tenant-c-kubeconfig "*) printf %s '${KUBECONFIG}' ;;`,
        `  *"get clusters.cluster.x-k8s.io tenant-c -o jsonpath={.spec.controlPlaneRef.name}"*) printf %s tenant-c-kcp ;;`,
        '  *"get clusters.cluster.x-k8s.io "*) printf %s "uid-of-$5" ;;',
        `  *"get kamajicontrolplanes.controlplane.cluster.x-k8s.io tenant-c-kcp "*) printf %s '${version}' ;;`,
        `  *"patch staticcontrolplanes.controlplane.pvekaas.lab "*) { echo "$5"; cat; echo; } >> "${dir}/patched" ;;`,
        `  *"apply "*) cat >> "${dir}/applied"; echo >> "${dir}/applied" ;;`,
        '  *) echo "unexpected kubectl $*" >&2; exit 2 ;;',
        'esac',
      ].join('\n'),
    );
    chmodSync(kubectl, 0o755);
    let status = 0;
    try {
      execFileSync('sh', ['-c', mirrorScript(tenant, secondaries)], { env: { PATH: `${dir}:/usr/bin:/bin` }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      status = (e as { status: number }).status;
    }
    const read = (f: string) => {
      try {
        return readFileSync(join(dir, f), 'utf8');
      } catch {
        return '';
      }
    };
    return {
      status,
      applied: read('applied')
        .split('\n')
        .filter((l) => l)
        .map((l) => JSON.parse(l)),
      calls: read('calls')
        .split('\n')
        .filter((l) => l),
      patched: read('patched')
        .split('\n')
        .filter((l) => l),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the secondary secret mirror script', () => {
  it('writes the CA certificate and the kubeconfig of every secondary as mirroredSecret describes them', () => {
    const { status, applied, calls } = run(['tenant-c-pmox-fra', 'tenant-c-pmox-muc'], true);
    expect(status).toBe(0);
    const expected = ['tenant-c-pmox-fra', 'tenant-c-pmox-muc'].flatMap((s) => [
      // The stand-in answers the primary's CA Secret with CA for every key it is asked.
      mirroredSecret({ tenant, secondary: s, name: `${s}-ca`, data: { 'tls.crt': CA, 'tls.key': CA }, clusterUid: `uid-of-${s}` }),
      mirroredSecret({ tenant, secondary: s, name: `${s}-kubeconfig`, data: { value: KUBECONFIG }, clusterUid: `uid-of-${s}` }),
    ]);
    expect(applied).toEqual(expected);
    // CABPK refuses a worker join whose cluster CA Secret has no key (util/secret EnsureAllExist).
    expect(applied.filter((a) => a.metadata.name.endsWith('-ca')).every((a) => a.data['tls.key'])).toBe(true);
    expect(calls.filter((c) => c.startsWith('apply'))).toEqual(
      Array(4).fill('apply --server-side --force-conflicts --field-manager=pvekaas-secondary-secrets -f -'),
    );
  });

  it('copies the version the primary KamajiControlPlane runs onto each StaticControlPlane, as controlPlaneStatusPatch', () => {
    const { status, patched } = run(['tenant-c-pmox-fra', 'tenant-c-pmox-muc'], true, 'v1.36.3');
    expect(status).toBe(0);
    const pairs = [];
    for (let i = 0; i < patched.length; i += 2) pairs.push({ name: patched[i], patch: JSON.parse(patched[i + 1]) });
    expect(pairs).toEqual(['tenant-c-pmox-fra', 'tenant-c-pmox-muc'].map((name) => ({ name, patch: controlPlaneStatusPatch('v1.36.3') })));
    // No version reported yet (Kamaji still provisioning): nothing is patched, and the run fails to be retried.
    const early = run(['tenant-c-pmox-fra'], true, '');
    expect(early.status).not.toBe(0);
    expect(early.patched).toEqual([]);
  });

  it('fails without writing anything while the primary has no CA Secret yet (the next run copies it)', () => {
    const { status, applied } = run(['tenant-c-pmox-fra'], false);
    expect(status).not.toBe(0);
    expect(applied).toEqual([]);
  });
});
