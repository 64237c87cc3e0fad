/**
 * Rules of the lab's identity provider and the tenants' access through it (issue 39,
 * docs/identity.md). kube-apiserver checks its AuthenticationConfiguration when it starts
 * (k8s.io/apiserver v0.34.4, pkg/apis/apiserver/validation/validation.go: the issuer URL "must be
 * https", "must not contain a username or password", "a query", "a fragment", "must not overlap
 * with disallowed issuers" — the service-account issuers; the CA must parse): a tenant API server
 * given one it refuses would not start, so what it refuses is refused here, at synth, naming the
 * field of the description. A `system:` prefix is pvekaas's own refusal (kube-apiserver takes it).
 *
 * Written defensively: it also runs on a description that failed the schema (see load.ts).
 */
import { X509Certificate } from 'node:crypto';
import type { Problem } from './problems';
import { rulesOf, type LabRule } from './rule';
import type { Lab, Tenant } from './schema';

/** kube-apiserver's own service-account issuer (Kamaji's default `--service-account-issuer`): a JWT authenticator may not claim it. */
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The three roles a tenant grants, the ClusterRole each is bound to in the tenant cluster. */
export const ACCESS_ROLES = [
  { role: 'admins', clusterRole: 'cluster-admin' },
  { role: 'editors', clusterRole: 'edit' },
  { role: 'viewers', clusterRole: 'view' },
] as const;
export type AccessRole = (typeof ACCESS_ROLES)[number]['role'];

/** A tenant's groups per role, as the issuer names them (without identity.groupsPrefix); empty lists without access. */
export function tenantRoleGroups(tenant: Pick<Tenant, 'access'>): Record<AccessRole, string[]> {
  const a = tenant.access;
  const listed = (role: AccessRole) => (Array.isArray(a?.[role]) ? [...new Set(a[role])].sort() : []);
  if (a && typeof a.prefix === 'string' && !a.admins && !a.editors && !a.viewers) {
    return { admins: [`${a.prefix}admins`], editors: [`${a.prefix}editors`], viewers: [`${a.prefix}viewers`] };
  }
  return { admins: listed('admins'), editors: listed('editors'), viewers: listed('viewers') };
}

/** The PEM blocks of a text and whether each parses as an X.509 certificate. */
export function pemCertificates(text: string): { count: number; bad: string[] } {
  const blocks = text.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  const bad: string[] = [];
  for (const block of blocks) {
    if (!block.startsWith('-----BEGIN CERTIFICATE-----')) {
      bad.push(block.slice(0, block.indexOf('\n') >= 0 ? block.indexOf('\n') : 40));
      continue;
    }
    try {
      new X509Certificate(block);
    } catch (e) {
      bad.push(`a CERTIFICATE block that does not parse (${(e as Error).message})`);
    }
  }
  return { count: blocks.length, bad };
}

function checkIdentityRules(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const id = lab?.identity;
  if (id && typeof id === 'object') {
    if (typeof id.issuer === 'string') {
      let why: string | undefined;
      let url: URL | undefined;
      try {
        url = new URL(id.issuer);
      } catch {
        why = 'it is not a URL';
      }
      if (url && url.protocol !== 'https:') why = `its scheme is ${url.protocol.replace(/:$/, '')}: kube-apiserver accepts an https issuer only`;
      else if (url && (url.username || url.password)) why = 'it carries user info, which kube-apiserver refuses in an issuer URL';
      else if (url && url.search) why = 'it has a query, which kube-apiserver refuses in an issuer URL';
      else if (url && url.hash) why = 'it has a fragment, which kube-apiserver refuses in an issuer URL';
      if (why) {
        problems.push({
          rule: 'identity.issuer-not-https',
          path: ['identity', 'issuer'],
          message: `identity.issuer is not an https URL every tenant API server can use: ${why}`,
          value: url && (url.username || url.password) ? '(redacted: it carries credentials)' : id.issuer,
          fix: 'give the issuer URL exactly as the provider publishes it in its discovery document, e.g. https://login.lab.example/realms/lab',
        });
      } else if (id.issuer.replace(/\/+$/, '') === SERVICE_ACCOUNT_ISSUER) {
        problems.push({
          rule: 'identity.issuer-is-service-account-issuer',
          path: ['identity', 'issuer'],
          message: `identity.issuer is ${SERVICE_ACCOUNT_ISSUER}, the tenant API servers' own service-account issuer: kube-apiserver refuses a JWT authenticator for it`,
          value: id.issuer,
          fix: "give your identity provider's issuer URL",
        });
      }
    }
    if (typeof id.certificateAuthorityData === 'string') {
      const { count, bad } = pemCertificates(Buffer.from(id.certificateAuthorityData, 'base64').toString('utf8'));
      if (count === 0 || bad.length > 0) {
        problems.push({
          rule: 'identity.ca-not-x509',
          path: ['identity', 'certificateAuthorityData'],
          message:
            count === 0
              ? 'identity.certificateAuthorityData does not decode to PEM (-----BEGIN CERTIFICATE-----): it must be the base64 of the PEM certificate of the CA that signed the issuer'
              : `identity.certificateAuthorityData decodes to PEM that is not an X.509 certificate: ${bad.join('; ')}`,
          fix: "give base64 -w0 ca.pem of the issuer's CA certificate, or remove certificateAuthorityData if the system's roots trust the issuer",
        });
      }
    }
    for (const field of ['usernamePrefix', 'groupsPrefix'] as const) {
      const value = id[field];
      if (typeof value === 'string' && /^system:/i.test(value)) {
        problems.push({
          rule: 'identity.system-prefix',
          path: ['identity', field],
          message: `identity.${field} starts with system:, Kubernetes' own ${field === 'groupsPrefix' ? 'groups (system:masters are the cluster admins)' : 'users'}: the issuer could then mint them`,
          value,
          fix: `pick a prefix of your own, e.g. ${field}: "oidc:" (the default)`,
        });
      }
    }
  }
  const tenants = Array.isArray(lab?.tenants) ? lab.tenants : [];
  tenants.forEach((tenant, ti) => {
    const a = tenant?.access;
    if (!a || typeof a !== 'object') return;
    const name = typeof tenant.name === 'string' ? tenant.name : `#${ti}`;
    if (!id) {
      problems.push({
        rule: 'access.without-identity',
        path: ['tenants', ti, 'access'],
        message: `tenant ${name} grants access by groups, but the lab has no identity provider to take them from`,
        fix: 'describe the identity provider under identity (issuer, clientID, certificateAuthorityData), or remove access',
      });
    }
    const lists = (['admins', 'editors', 'viewers'] as const).filter((r) => Array.isArray(a[r]));
    if (typeof a.prefix === 'string' && lists.length > 0) {
      problems.push({
        rule: 'access.prefix-and-lists',
        path: ['tenants', ti, 'access', 'prefix'],
        message: `tenant ${name}: access.prefix names the groups <prefix>admins, <prefix>editors and <prefix>viewers, and access also lists ${lists.join(', ')}: only one of the two applies`,
        value: a.prefix,
        fix: `remove prefix, or remove ${lists.join(', ')}`,
      });
    }
    const seen = new Map<string, string>();
    for (const role of lists) {
      (a[role] as unknown[]).forEach((group, gi) => {
        if (typeof group !== 'string') return;
        const first = seen.get(group);
        if (first === undefined) {
          seen.set(group, role);
          return;
        }
        if (first === role) return;
        problems.push({
          rule: 'access.group-in-two-roles',
          path: ['tenants', ti, 'access', role, gi],
          message: `tenant ${name}: group ${group} is in ${first} and in ${role}; a group has one role in a tenant (${first} already allows what ${role} would)`,
          value: group,
          fix: `keep ${group} in the one role it should have`,
        });
      });
    }
  });
  return problems;
}

export const IDENTITY_RULES: readonly LabRule[] = rulesOf(checkIdentityRules, [
  {
    id: 'identity.issuer-not-https',
    refuses: 'an identity issuer that is not an https URL, or one with user info, a query or a fragment (kube-apiserver refuses them)',
    fix: 'give the issuer URL as the provider publishes it, https',
  },
  {
    id: 'identity.issuer-is-service-account-issuer',
    refuses: "an identity issuer that is the tenant API servers' own service-account issuer",
    fix: "give the identity provider's issuer URL",
  },
  {
    id: 'identity.ca-not-x509',
    refuses: 'an identity.certificateAuthorityData that does not decode to PEM X.509 certificates',
    fix: "give base64 -w0 ca.pem of the issuer's CA, or remove it to use the system's roots",
  },
  {
    id: 'identity.system-prefix',
    refuses: "a username or groups prefix starting with system:, which would let the issuer mint Kubernetes' own users or groups",
    fix: 'pick a prefix of your own, e.g. "oidc:"',
  },
  {
    id: 'access.without-identity',
    refuses: "a tenant's access groups in a lab without an identity provider",
    fix: 'describe identity, or remove access',
  },
  {
    id: 'access.prefix-and-lists',
    refuses: "a tenant's access with both a prefix and lists of groups",
    fix: 'keep one of the two',
  },
  {
    id: 'access.group-in-two-roles',
    refuses: 'a group in two roles of the same tenant',
    fix: 'give each group one role per tenant',
  },
]);
