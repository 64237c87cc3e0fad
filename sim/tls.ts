/**
 * The simulator's TLS certificate. bpg/proxmox only talks https (it refuses an http endpoint), and
 * Node cannot create an X.509 certificate by itself, so a self-signed one is made with the openssl
 * command line once per process (for 127.0.0.1 and localhost). Clients skip verification
 * (`insecure: true` in the lab, as with a fresh PVE's own self-signed certificate).
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Certificate {
  key: string;
  cert: string;
  /** SHA-256 fingerprint, `AA:BB:...`, as PVE reports `ssl_fingerprint`. */
  fingerprint: string;
}

let cached: Certificate | undefined;

export function selfSignedCertificate(): Certificate {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'pve-sim-tls-'));
  try {
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
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '30',
        '-subj',
        '/CN=pve-sim.localhost/O=pvekaas simulator',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    cached = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert, fingerprint: new X509Certificate(cert).fingerprint256 };
    return cached;
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    if (err.code === 'ENOENT') throw new Error('the Proxmox simulator needs the openssl command to make its TLS certificate (apt-get install openssl)');
    throw new Error(`openssl could not make the simulator's TLS certificate: ${err.stderr?.toString() ?? err.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
