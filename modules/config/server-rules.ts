/**
 * Rules that only the Kubernetes API server would otherwise enforce, found by the kube test tier
 * (test/kube/server-rules.test.ts, docs/kube-tier.md): values the description accepts but that,
 * once rendered, land in a field the server refuses — at apply, or later when CAPI's topology
 * controller creates the objects of a tenant. Checked at synth so the error names the field in
 * the description rather than an object nobody wrote.
 *
 * Written defensively: it also runs on a description that failed the schema (see load.ts), so any
 * field may be missing or of the wrong type.
 */
import type { Problem } from './problems';
import type { Lab } from './schema';

/**
 * The API server checks `spec.replicas` of a custom resource with a scale subresource (the
 * KamajiControlPlane the tenant's Cluster gets) as an int32. Pool replicas cannot get there: a
 * tenant's node network cannot hold that many machines, which the tenant rendering checks.
 */
export const INT32_MAX = 2147483647;

/** Kubernetes label values: at most 63 characters, alphanumerics with - _ . inside. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function duplicatesIn(values: unknown, path: (string | number)[], what: string, where: string): Problem[] {
  if (!Array.isArray(values)) return [];
  const first = new Map<unknown, number>();
  const problems: Problem[] = [];
  values.forEach((value, i) => {
    const seen = first.get(value);
    if (seen === undefined) {
      first.set(value, i);
      return;
    }
    problems.push({
      path: [...path, i],
      message: `this ${what} is listed twice (first at index ${seen}); ${where} is a set, and the API server refuses an object that repeats an entry`,
      value,
      fix: 'list it once',
    });
  });
  return problems;
}

function int32(value: unknown, path: (string | number)[], field: string): Problem[] {
  if (typeof value !== 'number' || value <= INT32_MAX) return [];
  return [
    {
      path,
      message: `${field} is at most ${INT32_MAX}: it becomes the replicas of the tenant's KamajiControlPlane, which the API server checks as a 32-bit number`,
      value,
      fix: `use a number up to ${INT32_MAX}`,
    },
  ];
}

export function checkServerRules(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const instances = Array.isArray(lab?.proxmox?.instances) ? lab.proxmox.instances : [];
  instances.forEach((instance, ii) => {
    const base = ['proxmox', 'instances', ii];
    (Array.isArray(instance?.nodes) ? instance.nodes : []).forEach((node, ni) => {
      const name = node?.name;
      if (typeof name !== 'string' || name === '') return;
      if (name.length > 63 || !LABEL_VALUE.test(name)) {
        problems.push({
          path: [...base, 'nodes', ni, 'name'],
          message:
            'a node name becomes the label value node.cluster.x-k8s.io/proxmox-node on the machine deployments CAPI creates for it, and the API server refuses a label value ' +
            (name.length > 63 ? 'longer than 63 characters' : "that is not letters, digits, '-', '_' or '.' starting and ending with a letter or digit"),
          value: name,
          fix: 'write the Proxmox node name exactly as Proxmox shows it (a host name: letters, digits and -, at most 63 characters)',
        });
      }
    });
    const template = instance?.template as { templateSelector?: { matchTags?: unknown } } | undefined;
    problems.push(
      ...duplicatesIn(template?.templateSelector?.matchTags, [...base, 'template', 'templateSelector', 'matchTags'], 'tag', "CAPMOX's templateSelector.matchTags"),
    );
  });

  const tenants = Array.isArray(lab?.tenants) ? lab.tenants : [];
  tenants.forEach((tenant, ti) => {
    const base = ['tenants', ti];
    problems.push(...int32(tenant?.controlPlane?.replicas, [...base, 'controlPlane', 'replicas'], 'controlPlane.replicas'));
    problems.push(...duplicatesIn(tenant?.network?.dnsServers, [...base, 'network', 'dnsServers'], 'DNS server', "CAPMOX's dnsServers"));
  });
  return problems;
}
