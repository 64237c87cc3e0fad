/**
 * Certificates the lab twin issues where cert-manager would (the kamaji-etcd chart's Certificates):
 * ECDSA P-256 keys, made with the openssl command like the test servers' (scripts/lib/kube-apiserver.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertPair {
  cert: string;
  key: string;
}

/**
 * A CA (isCA) or, with `issuer`, a client certificate (CN `commonName`, O system:masters) signed by
 * it; with `serverNames` too, a serving and client certificate for those DNS names and IPs (the
 * kamaji-etcd chart's peer/server Certificate). `organization` is the client certificate's O (its
 * group; '' for none, e.g. kubeadm's system:kube-controller-manager).
 */
export function selfSignedPair(commonName: string, isCA: boolean, issuer?: CertPair, serverNames?: string[], organization = 'system:masters'): CertPair {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-twin-pki-'));
  try {
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    if (!issuer) {
      run([
        'req',
        '-x509',
        ...ec,
        '-keyout',
        'tls.key',
        '-out',
        'tls.crt',
        '-days',
        '30',
        '-subj',
        `/CN=${commonName}`,
        '-addext',
        isCA ? 'basicConstraints=critical,CA:TRUE' : 'basicConstraints=CA:FALSE',
        '-addext',
        isCA ? 'keyUsage=critical,keyCertSign,cRLSign' : 'keyUsage=digitalSignature,keyEncipherment',
      ]);
    } else {
      writeFileSync(join(dir, 'ca.crt'), issuer.cert);
      writeFileSync(join(dir, 'ca.key'), issuer.key);
      run(['req', '-new', ...ec, '-keyout', 'tls.key', '-out', 'tls.csr', '-subj', `${organization ? `/O=${organization}` : ''}/CN=${commonName}`]);
      const san = serverNames ? `subjectAltName=${serverNames.map((n) => (/^[0-9.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',')}\n` : '';
      writeFileSync(
        join(dir, 'ext'),
        `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=${serverNames ? 'serverAuth,clientAuth' : 'clientAuth'}\n${san}`,
      );
      run(['x509', '-req', '-in', 'tls.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-out', 'tls.crt', '-extfile', 'ext']);
    }
    return { cert: readFileSync(join(dir, 'tls.crt'), 'utf8'), key: readFileSync(join(dir, 'tls.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
