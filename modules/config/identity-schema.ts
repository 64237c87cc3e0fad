/**
 * The lab's identity provider and each tenant's access through it (issue 39, docs/identity.md):
 * the shapes, with the rest of the schema (modules/config/schema.ts imports them). What relates
 * several fields or needs parsing (an https issuer, a CA that parses, a prefix of Kubernetes' own)
 * is a rule of modules/config/identity-rules.ts.
 */
import { z } from 'zod';

/** A Kubernetes group: no spaces, quotes, '$', '{', '%' or '\\' (the tenant `groups` alphabet). */
const GROUP = /^[A-Za-z0-9][A-Za-z0-9._@:\/+=-]{0,252}$/;
/** A JWT claim name: a JSON key that kube-apiserver's claim mappings and a shell line take as it is. */
const CLAIM = /^[A-Za-z_][A-Za-z0-9_.:\/-]{0,127}$/;
/** A username or group prefix: may be empty; no spaces, quotes or shell characters. */
const PREFIX = /^[A-Za-z0-9._@:\/+=#-]{0,64}$/;
/** An OAuth client id. */
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._@:\/+=-]{0,252}$/;

const group = z
  .string()
  .regex(GROUP, { error: 'a group name is letters, digits and . _ @ : / + = -, starting with a letter or digit' })
  .refine((g) => !/^system:/i.test(g), {
    error: 'a "system:" group is Kubernetes\' own (system:masters are the cluster admins, system:authenticated everyone who can log in)',
    params: { fix: "name the issuer's group of the people who run this tenant, e.g. team-a-admins" },
  });

const claim = (what: string) =>
  z.string().regex(CLAIM, { error: `${what} is a claim name: a letter or _ first, then letters, digits and _ . : / -, e.g. sub, email, groups` });

const prefix = (what: string) =>
  z.string().regex(PREFIX, { error: `${what} is letters, digits and . _ @ : / + = # - (or empty), at most 64 characters, e.g. "oidc:"` });

export const identitySchema = z
  .strictObject({
    issuer: z
      .string()
      .min(1)
      .max(1024)
      .describe('the OIDC issuer URL (https), exactly as its tokens carry it in iss; its discovery document is <issuer>/.well-known/openid-configuration'),
    clientID: z
      .string()
      .regex(CLIENT_ID, { error: 'clientID is letters, digits and . _ @ : / + = -, starting with a letter or digit' })
      .describe('the OAuth client id people log in with: the audience (aud) every tenant API server accepts'),
    usernameClaim: claim('usernameClaim').default('sub').describe('the claim that names the person (sub, email, preferred_username...)'),
    usernamePrefix: prefix('usernamePrefix')
      .default('oidc:')
      .describe('put before every username, so no token can name a Kubernetes user of the cluster itself'),
    groupsClaim: claim('groupsClaim').default('groups').describe("the claim that lists the person's groups"),
    groupsPrefix: prefix('groupsPrefix').default('oidc:').describe("put before every group of the token; tenants' access lists name groups without it"),
    certificateAuthorityData: z
      .string()
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, {
        error: "certificateAuthorityData is the base64 of the issuer CA's PEM certificate on one line, e.g. the output of: base64 -w0 ca.pem",
      })
      .optional()
      .describe(
        "base64 of the PEM certificate of the issuer's CA, like kubeconfig's certificate-authority-data (default: the system's roots); every tenant API server verifies the issuer with it",
      ),
  })
  .describe(
    'the identity provider every tenant API server authenticates people through (Kubernetes structured authentication configuration); tenants[].access binds its groups (docs/identity.md)',
  );

export const tenantAccessSchema = z
  .strictObject({
    admins: z.array(group).optional().describe('groups bound to cluster-admin in the tenant cluster'),
    editors: z.array(group).optional().describe('groups bound to edit (every namespace)'),
    viewers: z.array(group).optional().describe('groups bound to view (every namespace)'),
    prefix: z
      .string()
      .regex(GROUP, { error: 'prefix is letters, digits and . _ @ : / + = -, starting with a letter or digit' })
      .refine((g) => !/^system:/i.test(g), { error: 'a "system:" prefix names Kubernetes\' own groups' })
      .optional()
      .describe('instead of the lists: the groups <prefix>admins, <prefix>editors and <prefix>viewers'),
  })
  .describe("who may use the tenant cluster, by the identity provider's groups (needs identity; docs/identity.md)");

export type Identity = z.output<typeof identitySchema>;
export type TenantAccess = z.output<typeof tenantAccessSchema>;
