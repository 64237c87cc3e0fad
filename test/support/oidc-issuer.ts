/**
 * A small OIDC issuer of the tests' own (issue 39), never a product part: https on loopback with a
 * CA it makes (openssl, twin/pki.ts), its discovery document
 * (`/.well-known/openid-configuration`) and its JWKS (`/keys`), RSA signing keys it makes with
 * node:crypto, and ID tokens (RS256 JWTs) it mints for the claims a test asks for. `rotate()`
 * replaces the signing key with a new one under a new `kid`; `keyFetches` counts JWKS reads, so a
 * test can see an API server fetch the new key.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { selfSignedPair } from '../../twin/pki';

export interface MintOptions {
  /** Seconds from now until `exp` (negative: already expired). @default 600 */
  expiresIn?: number;
  /** @default the client id the issuer was started with */
  audience?: string;
  /** @default the issuer's URL */
  issuer?: string;
  /** Sign with a key the JWKS does not hold, under the current kid (a wrong signature). @default false */
  foreignKey?: boolean;
}

export interface TestIssuer {
  url: string;
  /** PEM of the issuer's CA, and its base64 (as identity.certificateAuthorityData takes it). */
  caPem: string;
  caData: string;
  clientID: string;
  /** The kid tokens are signed with now. */
  kid(): string;
  /** How many times /keys was read. */
  keyFetches(): number;
  mint(claims: Record<string, unknown>, options?: MintOptions): string;
  /** A new signing key under a new kid; the JWKS serves only the new one. */
  rotate(): void;
  stop(): Promise<void>;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

function newKey(): { kid: string; privateKey: KeyObject; jwk: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

export async function startTestIssuer(clientID = 'kubernetes'): Promise<TestIssuer> {
  const ca = selfSignedPair('pvekaas test OIDC issuer CA', true);
  const cert = selfSignedPair('127.0.0.1', false, ca, ['127.0.0.1', 'localhost']);
  let key = newKey();
  const foreign = newKey();
  let fetches = 0;
  let url = '';
  const server: Server = createServer({ key: cert.key, cert: `${cert.cert}${ca.cert}` }, (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      return send(200, {
        issuer: url,
        jwks_uri: `${url}/keys`,
        authorization_endpoint: `${url}/auth`,
        token_endpoint: `${url}/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (req.url === '/keys') {
      fetches++;
      return send(200, { keys: [key.jwk] });
    }
    send(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    caPem: ca.cert,
    caData: Buffer.from(ca.cert).toString('base64'),
    clientID,
    kid: () => key.kid,
    keyFetches: () => fetches,
    mint(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const header = { alg: 'RS256', typ: 'JWT', kid: key.kid };
      const payload = {
        iss: options.issuer ?? url,
        aud: options.audience ?? clientID,
        iat: now - 5,
        nbf: now - 5,
        exp: now + (options.expiresIn ?? 600),
        ...claims,
      };
      const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
      return `${input}.${b64url(sign('sha256', Buffer.from(input), options.foreignKey ? foreign.privateKey : key.privateKey))}`;
    },
    rotate() {
      key = newKey();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One request to a tenant API server with a bearer token: the status and body. */
export function asPerson(
  p: { server: { url: string; dir: string } },
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const ca = readFileSync(join(p.server.dir, 'ca.crt'));
  const url = new URL(path, p.server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Three people of two tenants (examples/lab-identity.yaml's access): their ID token claims. */
export const people = {
  alice: { sub: 'alice', email: 'alice@lab.example', email_verified: true, groups: ['team-a-admins'] },
  bob: { sub: 'bob', email: 'bob@lab.example', email_verified: true, groups: ['auditors'] },
  carol: { sub: 'carol', email: 'carol@lab.example', email_verified: true, groups: ['team-b-admins'] },
};

/** What the lab says each of them may do with Deployments in tenant-a and tenant-b (admins write, viewers read). */
export const LAB_ACCESS: Record<string, Record<string, { write: boolean; read: boolean }>> = {
  alice: { 'tenant-a': { write: true, read: true }, 'tenant-b': { write: false, read: false } },
  bob: { 'tenant-a': { write: false, read: true }, 'tenant-b': { write: false, read: true } },
  carol: { 'tenant-a': { write: false, read: false }, 'tenant-b': { write: true, read: true } },
};

/**
 * Every allow and deny of each person in each tenant API server (SelfSubjectAccessReview: create
 * and list Deployments), against `expected`: the differences, in words.
 */
export async function accessMismatches(
  issuer: TestIssuer,
  who: Record<string, Record<string, unknown>>,
  expected: Record<string, Record<string, { write: boolean; read: boolean }>>,
  plane: (tenant: string) => { server: { url: string; dir: string } },
): Promise<string[]> {
  const out: string[] = [];
  for (const [person, claims] of Object.entries(who)) {
    const token = issuer.mint(claims);
    for (const [tenantName, want] of Object.entries(expected[person] ?? {})) {
      const review = async (verb: string) =>
        (
          await asPerson(plane(tenantName), token, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: { namespace: 'default', verb, group: 'apps', resource: 'deployments' } },
          })
        ).body?.status?.allowed === true;
      const pronoun = person === 'bob' ? 'he' : 'she';
      for (const [verb, key] of [
        ['create', 'write'],
        ['list', 'read'],
      ] as const) {
        const got = await review(verb);
        if (got !== want[key])
          out.push(`${person} ${got ? 'may' : 'may not'} ${verb} deployments in ${tenantName}; the lab says ${pronoun} ${want[key] ? 'may' : 'may not'}`);
      }
    }
  }
  return out;
}
