/**
 * A small OIDC issuer of the tests' own (issue 39), never a product part: https on loopback with a
 * CA it makes (openssl, scripts/twin/pki.ts), its discovery document
 * (`/.well-known/openid-configuration`) and its JWKS (`/keys`), RSA signing keys it makes with
 * node:crypto, and ID tokens (RS256 JWTs) it mints for the claims a test asks for. `rotate()`
 * replaces the signing key with a new one under a new `kid`; `keyFetches` counts JWKS reads, so a
 * test can see an API server fetch the new key.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedPair } from '../../scripts/twin/pki';

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
