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
import { runRules, type LabRule } from './rule';

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

const looseInstances = (lab: Lab) => (Array.isArray(lab?.proxmox?.instances) ? lab.proxmox.instances : []);
const looseTenants = (lab: Lab) => (Array.isArray(lab?.tenants) ? lab.tenants : []);

export const SERVER_RULES: readonly LabRule[] = [
  {
    id: 'node.name-not-label-value',
    refuses: 'a node name that is no Kubernetes label value (node.cluster.x-k8s.io/proxmox-node on the machine deployments)',
    fix: 'write the Proxmox node name exactly as Proxmox shows it (a host name: letters, digits and -, at most 63 characters)',
    check: (lab) =>
      looseInstances(lab).flatMap((instance, ii) =>
        (Array.isArray(instance?.nodes) ? instance.nodes : []).flatMap((node, ni): Problem[] => {
          const name = node?.name;
          if (typeof name !== 'string' || name === '' || (name.length <= 63 && LABEL_VALUE.test(name))) return [];
          return [
            {
              path: ['proxmox', 'instances', ii, 'nodes', ni, 'name'],
              message:
                'a node name becomes the label value node.cluster.x-k8s.io/proxmox-node on the machine deployments CAPI creates for it, and the API server refuses a label value ' +
                (name.length > 63 ? 'longer than 63 characters' : "that is not letters, digits, '-', '_' or '.' starting and ending with a letter or digit"),
              value: name,
              fix: 'write the Proxmox node name exactly as Proxmox shows it (a host name: letters, digits and -, at most 63 characters)',
            },
          ];
        }),
      ),
  },
  {
    id: 'template.match-tag-twice',
    refuses: 'a tag listed twice in templateSelector.matchTags (a set: the API server refuses the repeat)',
    fix: 'list it once',
    check: (lab) =>
      looseInstances(lab).flatMap((instance, ii) => {
        const template = instance?.template as { templateSelector?: { matchTags?: unknown } } | undefined;
        const path = ['proxmox', 'instances', ii, 'template', 'templateSelector', 'matchTags'];
        return duplicatesIn(template?.templateSelector?.matchTags, path, 'tag', "CAPMOX's templateSelector.matchTags");
      }),
  },
  {
    id: 'tenant.control-plane-replicas-int32',
    refuses: 'controlPlane.replicas above the int32 range the API server checks',
    fix: `use a number up to ${INT32_MAX}`,
    check: (lab) =>
      looseTenants(lab).flatMap((tenant, ti) => int32(tenant?.controlPlane?.replicas, ['tenants', ti, 'controlPlane', 'replicas'], 'controlPlane.replicas')),
  },
  {
    id: 'network.dns-server-twice',
    refuses: 'a DNS server listed twice in network.dnsServers (a set: the API server refuses the repeat)',
    fix: 'list it once',
    check: (lab) =>
      looseTenants(lab).flatMap((tenant, ti) =>
        duplicatesIn(tenant?.network?.dnsServers, ['tenants', ti, 'network', 'dnsServers'], 'DNS server', "CAPMOX's dnsServers"),
      ),
  },
];

/** The problems of the server rules alone. */
export function checkServerRules(lab: Lab): Problem[] {
  return runRules(lab, SERVER_RULES);
}
