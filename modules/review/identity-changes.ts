/**
 * The review's section on identity (issue 39, docs/identity.md): who gains or loses access to
 * which tenant cluster, from the two descriptions — each tenant's groups per role (admins →
 * cluster-admin, editors → edit, viewers → view) as the tenant API servers name them (with
 * identity.groupsPrefix), and changes of the identity provider itself, which every tenant's login
 * depends on. Gaining cluster-admin, a new issuer or client id, and losing identity altogether are
 * warnings.
 */
import { ACCESS_ROLES, tenantRoleGroups, type AccessRole } from '../config/identity-rules';
import type { Lab } from '../config/schema';
import type { ReviewInput, ReviewSection } from './index';

/** Each tenant's bound groups per role, as the API servers name them; none without identity. */
function access(lab: Lab): Map<string, Record<AccessRole, string[]>> {
  const out = new Map<string, Record<AccessRole, string[]>>();
  if (!lab.identity) return out;
  const prefix = lab.identity.groupsPrefix;
  for (const t of lab.tenants) {
    const groups = tenantRoleGroups(t);
    out.set(t.name, {
      admins: groups.admins.map((g) => `${prefix}${g}`),
      editors: groups.editors.map((g) => `${prefix}${g}`),
      viewers: groups.viewers.map((g) => `${prefix}${g}`),
    });
  }
  return out;
}

const code = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');

/** One line per identity provider field that changes. */
function providerChanges(before: Lab, after: Lab): { lines: string[]; warnings: string[] } {
  const a = before.identity;
  const b = after.identity;
  const lines: string[] = [];
  const warnings: string[] = [];
  if (!a && !b) return { lines, warnings };
  if (!a && b) {
    lines.push(`- identity provider added: \`${b.issuer}\` (client id \`${b.clientID}\`): every tenant API server authenticates its ID tokens.`);
    return { lines, warnings };
  }
  if (a && !b) {
    const line = `identity provider \`${a.issuer}\` removed: nobody logs in to a tenant cluster through it any more (the admin kubeconfigs stay)`;
    lines.push(`- ${line}.`);
    warnings.push(line);
    return { lines, warnings };
  }
  const fields = ['issuer', 'clientID', 'usernameClaim', 'usernamePrefix', 'groupsClaim', 'groupsPrefix', 'certificateAuthorityData'] as const;
  for (const f of fields) {
    if (a![f] === b![f]) continue;
    const shown = (v: string | undefined) => (f === 'certificateAuthorityData' ? (v ? '(a CA)' : '(the system roots)') : `\`${v ?? ''}\``);
    const line = `identity.${f} changes ${shown(a![f])} → ${shown(b![f])}: every tenant API server's login changes with it${
      f === 'usernamePrefix' || f === 'groupsPrefix' || f === 'usernameClaim' || f === 'groupsClaim' ? ' (RBAC bound to the old names no longer matches)' : ''
    }`;
    lines.push(`- ${line}.`);
    if (f === 'issuer' || f === 'clientID' || f === 'certificateAuthorityData') warnings.push(line);
  }
  return { lines, warnings };
}

/** Review section: identity provider changes, and who gains or loses which role in which tenant. */
export const identitySection: ReviewSection = (input: ReviewInput) => {
  const { lines, warnings } = providerChanges(input.before.lab, input.after.lab);
  const was = access(input.before.lab);
  const is = access(input.after.lab);
  const rows: string[] = [];
  for (const tenant of [...new Set([...was.keys(), ...is.keys()])].sort()) {
    for (const { role, clusterRole } of ACCESS_ROLES) {
      const before = new Set(was.get(tenant)?.[role] ?? []);
      const after = new Set(is.get(tenant)?.[role] ?? []);
      const gains = [...after].filter((g) => !before.has(g)).sort();
      const loses = [...before].filter((g) => !after.has(g)).sort();
      if (gains.length === 0 && loses.length === 0) continue;
      rows.push(`| ${tenant} | ${role} (${clusterRole}) | ${code(gains)} | ${code(loses)} |`);
      if (role === 'admins' && gains.length > 0) warnings.push(`tenant ${tenant}: ${gains.join(', ')} gain${gains.length === 1 ? 's' : ''} cluster-admin`);
    }
  }
  if (lines.length === 0 && rows.length === 0) return undefined;
  return {
    title: 'Identity: who gains or loses access',
    lines: [...lines, ...(rows.length > 0 ? [...(lines.length > 0 ? [''] : []), '| tenant | role | gains | loses |', '|---|---|---|---|', ...rows] : [])],
    warnings,
  };
};
