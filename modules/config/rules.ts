/**
 * Rules of the tenants that relate several fields of a lab description: names that must be unique, references
 * that must resolve, ranges that must not overlap, templates for every version. Each is one entry
 * of `LAB_RULES` (listed in the rule table, modules/config/rule-table.ts) and returns every problem it finds.
 */
import type { Problem } from './problems';
import { IMAGE_TEMPLATE_DISK_GIB, fixedTemplateFor, type Lab } from './schema';
import { parseRange, overlaps, type Ipv4Range } from './ip';
import type { LabRule } from './rule';
import { duplicates, perPool, perTenant, unknownRef, type Instance, type Tenant } from './rule-helpers';
import { possibleInstances } from './tenant-instances';

/**
 * The boot disk of the template a pool on `instance` is cloned from for a version, where it is known:
 * a template the instance stack builds from an image (IMAGE_TEMPLATE_DISK_GIB), or an existing one
 * whose `diskGiB` the description gives (a `versions[]` entry's own, else the template's).
 * The pinned CAPMOX (proxmoxProvider) resizes every clone's boot disk to the pool's bootVolume before the first start
 * (internal/service/vmservice/vm.go, reconcileDisks → ResizeDisk) and qemu-server refuses a smaller
 * size ("shrinking disks is not supported"), so such a machine never boots.
 */
function templateDiskFor(instance: Instance, version: string): { template: string; diskGiB: number } | undefined {
  const t = instance.template;
  if (!('templateID' in t)) {
    return instance.images.some((i) => i.kubernetesVersion === version)
      ? { template: `the template built from the ${version} image`, diskGiB: IMAGE_TEMPLATE_DISK_GIB }
      : undefined;
  }
  if (t.kubernetesVersion === version) return t.diskGiB === undefined ? undefined : { template: `template ${t.templateID}`, diskGiB: t.diskGiB };
  const more = t.versions?.find((v) => v.kubernetesVersion === version);
  const diskGiB = more?.diskGiB ?? t.diskGiB;
  return more && diskGiB !== undefined ? { template: `template ${more.templateID}`, diskGiB } : undefined;
}

/**
 * The instances a tenant's templates must be on: those it really puts machines on (pinned pools'
 * instances, and the eligible ones only when a pool is not pinned; ./tenant-instances.ts). An empty
 * sourceNode is lenient.ts's stand-in for a template the schema refused (reported there): that
 * instance is left out.
 */
function templateInstances(lab: Lab, tenant: Tenant): Instance[] {
  const used = possibleInstances(lab, tenant);
  return lab.proxmox.instances.filter((i) => used.includes(i.name)).filter((i) => !('sourceNode' in i.template && i.template.sourceNode === ''));
}

/** The rules of the instances, tenants and pools that relate several fields (names, references, ranges, versions). */
export const LAB_RULES: readonly LabRule[] = [
  {
    id: 'tenant.name-twice',
    refuses: 'two tenants with one name',
    fix: 'give each tenant a unique name',
    check: (lab) =>
      duplicates(
        lab.tenants,
        (t) => t.name,
        (i) => ['tenants', i, 'name'],
        'tenant',
      ),
  },
  {
    id: 'tenant.unknown-instance',
    refuses: 'a placement.instances entry that is not an instance of the lab',
    fix: 'name instances of proxmox.instances',
    check: (lab) => {
      const names = lab.proxmox.instances.map((i) => i.name);
      return perTenant(lab, (tenant, base) =>
        (tenant.placement.instances ?? []).flatMap((name, k) =>
          names.includes(name) ? [] : [unknownRef([...base, 'placement', 'instances', k], 'instance', name, names)],
        ),
      );
    },
  },
  {
    id: 'pool.name-twice',
    refuses: 'two pools of one tenant (or of its previous) with one name',
    fix: 'give each pool of a tenant a unique name',
    check: (lab) =>
      perTenant(lab, (tenant, base) => [
        ...duplicates(
          tenant.pools,
          (p) => p.name,
          (i) => [...base, 'pools', i, 'name'],
          'pool',
        ),
        ...duplicates(
          tenant.previous?.pools ?? [],
          (p) => p.name,
          (i) => [...base, 'previous', 'pools', i, 'name'],
          'pool',
        ),
      ]),
  },
  {
    id: 'pool.no-size',
    refuses: 'a pool with neither replicas nor autoscaling',
    fix: 'add "replicas: 3" or "autoscaling: { min: 0, max: 6 }"',
    check: (lab) =>
      perPool(lab, (pool, at) =>
        pool.replicas === undefined && pool.autoscaling === undefined
          ? [{ path: at, message: 'a pool needs replicas or autoscaling', fix: 'add "replicas: 3" or "autoscaling: { min: 0, max: 6 }"' }]
          : [],
      ),
  },
  {
    id: 'pool.replicas-and-autoscaling',
    refuses: 'a pool with both a fixed replicas count and autoscaling bounds',
    fix: 'remove replicas (the autoscaler decides) or remove autoscaling',
    check: (lab) =>
      perPool(lab, (pool, at) =>
        pool.replicas !== undefined && pool.autoscaling !== undefined
          ? [
              {
                path: [...at, 'autoscaling'],
                message: 'a pool has either a fixed replicas count or autoscaling bounds, not both',
                fix: 'remove replicas (the autoscaler decides) or remove autoscaling',
              },
            ]
          : [],
      ),
  },
  {
    id: 'pool.autoscaling-min-above-max',
    refuses: 'autoscaling.min above autoscaling.max',
    fix: 'make min at most max',
    check: (lab) =>
      perPool(lab, (pool, at) =>
        pool.autoscaling && pool.autoscaling.min > pool.autoscaling.max
          ? [
              {
                path: [...at, 'autoscaling', 'min'],
                message: `autoscaling.min (${pool.autoscaling.min}) is above autoscaling.max (${pool.autoscaling.max})`,
                value: pool.autoscaling,
                fix: 'make min at most max',
              },
            ]
          : [],
      ),
  },
  {
    id: 'pool.floor-above-max',
    refuses: 'an autoscaling.floor entry above autoscaling.max (the new node group could never hold it)',
    fix: 'make the floor at most max (it is the pool size now on that node, which max bounds)',
    check: (lab) =>
      perPool(lab, (pool, at) =>
        Object.entries(pool.autoscaling?.floor ?? {})
          .filter(([, n]) => n > pool.autoscaling!.max)
          .map(([key, n]) => ({
            path: [...at, 'autoscaling', 'floor', key],
            message: `autoscaling.floor ${key} (${n}) is above autoscaling.max (${pool.autoscaling!.max})`,
            value: n,
            fix: 'make the floor at most max (it is the pool size now on that node, which max bounds)',
          })),
      ),
  },
  {
    id: 'pool.floor-in-previous',
    refuses: 'autoscaling.floor in previous.pools (the retiring machine deployments keep their bounds; the floor is for the new ones)',
    fix: 'move the floor to the pool in pools (tenants[].pools[].autoscaling.floor), where it stays through the retire step',
    check: (lab) =>
      perTenant(lab, (tenant, base) =>
        (tenant.previous?.pools ?? []).flatMap((pool, pi) =>
          pool.autoscaling?.floor === undefined
            ? []
            : [
                {
                  path: [...base, 'previous', 'pools', pi, 'autoscaling', 'floor'],
                  message: `previous.pools ${pool.name} has autoscaling.floor, which applies only to the new machine deployments`,
                  value: pool.autoscaling.floor,
                  fix: `move it to the pool ${pool.name} in pools (tenants[].pools[].autoscaling.floor), where it stays through the retire step`,
                },
              ],
        ),
      ),
  },
  {
    id: 'pool.unknown-instance',
    refuses: 'a pool pinned (pools[].instance) to an instance the lab does not have',
    fix: 'name an instance of proxmox.instances',
    check: (lab) => {
      const names = lab.proxmox.instances.map((i) => i.name);
      return perPool(lab, (pool, at) =>
        pool.instance !== undefined && !names.includes(pool.instance) ? [unknownRef([...at, 'instance'], 'instance', pool.instance, names)] : [],
      );
    },
  },
  {
    id: 'previous.newer',
    refuses: "a previous.kubernetesVersion newer than the tenant's kubernetesVersion (a kubelet newer than its API server)",
    fix: 'set previous.kubernetesVersion to the version the workers run now, and kubernetesVersion to the one they move to',
    check: (lab) =>
      perTenant(lab, (tenant, base) =>
        checkPrevious(tenant, base)
          .filter((p) => p.kind === 'newer')
          .map((p) => p.problem),
      ),
  },
  {
    id: 'previous.minor-jump',
    refuses: 'a surge (previous) of more than one minor version at once',
    fix: 'upgrade one minor at a time (npm run upgrade-plan shows each step)',
    check: (lab) =>
      perTenant(lab, (tenant, base) =>
        checkPrevious(tenant, base)
          .filter((p) => p.kind === 'jump')
          .map((p) => p.problem),
      ),
  },
  {
    id: 'previous.no-template',
    refuses: 'an instance the tenant may use without a template for previous.kubernetesVersion (the retiring workers are made from it)',
    fix: 'keep the template of the previous version until the retire step',
    check: (lab) =>
      perTenant(lab, (tenant, base) => {
        const before = tenant.previous?.kubernetesVersion;
        if (!before || before === tenant.kubernetesVersion) return [];
        return templateInstances(lab, tenant)
          .filter((instance) => !hasTemplateFor(instance, before))
          .map((instance) => ({
            path: [...base, 'previous', 'kubernetesVersion'],
            message:
              `instance ${instance.name} has no template for ${before}, which the retiring machine deployments of tenant ${tenant.name} are made from ` +
              '(their worker templates must stay as they are until you remove previous)',
            value: before,
            fix:
              `keep the ${before} template of proxmox.instances[${lab.proxmox.instances.indexOf(instance)}] (its image, tag or versions entry) until the retire step, ` +
              'or correct previous.kubernetesVersion to the version the workers run',
          }));
      }),
  },
  {
    id: 'tenant.no-template',
    refuses: "an instance the tenant may use without a template for the tenant's kubernetesVersion",
    fix: 'add an image, tag or template for the version to the instance, or choose another version',
    check: (lab) =>
      perTenant(lab, (tenant, base) => {
        const version = tenant.kubernetesVersion;
        return templateInstances(lab, tenant)
          .filter((instance) => !hasTemplateFor(instance, version))
          .map((instance) => {
            const at = `proxmox.instances[${lab.proxmox.instances.indexOf(instance)}]`;
            return {
              path: [...base, 'kubernetesVersion'],
              message: `instance ${instance.name} has no template for ${version}`,
              value: version,
              fix:
                'templateID' in instance.template
                  ? `give ${at}.template a kubernetesVersion (the version of the kubeadm and kubelet in template ${instance.template.templateID}), ` +
                    `or add { kubernetesVersion: ${version}, templateID: <id> } to ${at}.template.versions, or choose another version`
                  : `add an image for ${version} to ${at}.images, or set its templateSelector tags to include ${version}, or choose another version`,
            };
          });
      }),
  },
  {
    id: 'pool.disk-below-template',
    refuses:
      'a pool whose size.diskGiB is smaller than the boot disk of a template it is cloned from (20 GiB for the templates pvekaas builds; template.diskGiB where given)',
    fix: "set the pool's size.diskGiB to at least the template's disk, or correct template.diskGiB",
    check: (lab) =>
      perPool(lab, (pool, at, tenant) => {
        const version = at.includes('previous') ? (tenant.previous?.kubernetesVersion ?? tenant.kubernetesVersion) : tenant.kubernetesVersion;
        const instances = templateInstances(lab, tenant).filter((i) => (pool.instance === undefined ? true : i.name === pool.instance));
        return instances.flatMap((instance) => {
          const disk = templateDiskFor(instance, version);
          if (disk === undefined || pool.size.diskGiB >= disk.diskGiB) return [];
          return [
            {
              path: [...at, 'size', 'diskGiB'],
              message:
                `pool ${pool.name} of tenant ${tenant.name} asks for a ${pool.size.diskGiB} GiB disk, but ${disk.template} (${version}) on instance ` +
                `${instance.name} has a ${disk.diskGiB} GiB boot disk: CAPMOX resizes each clone to the pool's bootVolume and Proxmox VE refuses to shrink a disk ` +
                '("shrinking disks is not supported"), so no machine of the pool would boot',
              value: pool.size.diskGiB,
              fix: `set ${[...at, 'size', 'diskGiB'].join('.').replace(/\.(\d+)/g, '[$1]')} to ${disk.diskGiB} or more`,
            },
          ];
        });
      }),
  },
  {
    id: 'addresses.range-reversed',
    refuses: 'an address range (load-balancer pool, node range) that ends before it starts',
    fix: 'write the lower address first, e.g. 10.0.0.10-10.0.0.50',
    check: (lab) => claimAddresses(lab).reversed,
  },
  {
    id: 'addresses.overlap',
    refuses: 'node ranges of tenants (network, networks) and the load-balancer pool that overlap each other',
    fix: 'give every tenant node range and the load-balancer pool addresses of their own',
    check: (lab) => claimAddresses(lab).overlaps,
  },
  {
    id: 'vip.pinned-twice',
    refuses: 'one pinned vip under two tenants (both control planes would answer on it)',
    fix: 'give each tenant its own VIP, or leave vip out to allocate one',
    check: (lab) => {
      const vips = new Map<string, string>();
      return perTenant(lab, (t, base) => {
        if (!t.vip) return [];
        const other = vips.get(t.vip);
        if (!other) vips.set(t.vip, t.name);
        return other
          ? [
              {
                path: [...base, 'vip'],
                message: `VIP ${t.vip} is already the VIP of tenant ${other}`,
                value: t.vip,
                fix: 'give each tenant its own VIP, or leave vip out to allocate one',
              },
            ]
          : [];
      });
    },
  },
  {
    id: 'vip.in-node-range',
    refuses: "a pinned vip inside a tenant's node range (IPAM would hand it to a worker)",
    fix: 'take the VIP from management.loadBalancer.addresses',
    check: (lab) => {
      const nodeRanges = claimAddresses(lab).claimed.filter((c) => c.owner.startsWith('the node range'));
      return perTenant(lab, (t, base) => {
        const at = t.vip ? parseRange(t.vip) : undefined;
        const inNodes = at && nodeRanges.find((c) => overlaps(c.range, at));
        return inNodes
          ? [
              {
                path: [...base, 'vip'],
                message: `VIP ${t.vip} lies in ${inNodes.owner}`,
                value: t.vip,
                fix: 'take the VIP from management.loadBalancer.addresses',
              },
            ]
          : [];
      });
    },
  },
  {
    id: 'delivery.cloud-missing',
    refuses: 'delivery.backend: cloud without a delivery.cloud section',
    fix: 'add delivery.cloud: { organization: <org>, workspacePrefix: <prefix> }, or use backend: local',
    check: (lab) =>
      lab.delivery.backend === 'cloud' && !lab.delivery.cloud
        ? [
            {
              path: ['delivery', 'cloud'],
              message: 'backend is cloud but there is no cloud section',
              fix: 'add delivery.cloud: { organization: <org>, workspacePrefix: <prefix> }, or use backend: local',
            },
          ]
        : [],
  },
];

const VERSION_PARTS = /^v(\d+)\.(\d+)\.(\d+)$/;

/**
 * `previous` (surge, then retire; docs/tenants.md): the retiring workers may be older than the
 * control plane, never newer (a kubelet newer than the API server is outside the skew policy), and
 * at most one minor older (the control plane moves one minor per change; modules/foresight/upgrade.ts).
 */
function checkPrevious(tenant: Tenant, base: (string | number)[]): { kind: 'newer' | 'jump'; problem: Problem }[] {
  const before = tenant.previous?.kubernetesVersion;
  if (!before) return [];
  const a = VERSION_PARTS.exec(before);
  const b = VERSION_PARTS.exec(tenant.kubernetesVersion);
  if (!a || !b) return [];
  const [, amaj, amin, apat] = a.map(Number);
  const [, bmaj, bmin, bpat] = b.map(Number);
  const path = [...base, 'previous', 'kubernetesVersion'];
  if (amaj !== bmaj || amin > bmin || (amin === bmin && apat > bpat)) {
    return [
      {
        kind: 'newer',
        problem: {
          path,
          message: `previous.kubernetesVersion ${before} is newer than the tenant's ${tenant.kubernetesVersion}: the control plane would run ${tenant.kubernetesVersion} under workers of ${before}, and no kubelet may be newer than its API server (nor does CAPI downgrade a control plane)`,
          value: before,
          fix: `set previous.kubernetesVersion to the version the workers run now, and kubernetesVersion to the one they move to (at most one minor newer)`,
        },
      },
    ];
  }
  if (bmin - amin > 1) {
    return [
      {
        kind: 'jump',
        problem: {
          path,
          message: `tenant ${tenant.name} would move from ${before} to ${tenant.kubernetesVersion}, ${bmin - amin} minor versions at once; the control plane moves one minor per change`,
          value: before,
          fix: `upgrade one minor at a time: first kubernetesVersion v${bmaj}.${amin + 1}.<patch> with previous.kubernetesVersion ${before}, remove previous once the new Nodes are Ready, then the next minor (npm run upgrade-plan shows each step)`,
        },
      },
    ];
  }
  return [];
}

/** Whether an instance can provide a template for a Kubernetes version. */
export function hasTemplateFor(instance: Lab['proxmox']['instances'][number], version: string): boolean {
  // A fixed template holds one Kubernetes version's kubeadm and kubelet: it serves that version only.
  if ('templateID' in instance.template) return fixedTemplateFor(instance, version) !== undefined;
  if (instance.images.some((img) => img.kubernetesVersion === version)) return true;
  return instance.template.templateSelector.matchTags.some((t) => t.toLowerCase() === version.toLowerCase());
}

interface Claim {
  range: Ipv4Range;
  owner: string;
  path: (string | number)[];
}

/**
 * Every address range of the lab in description order (the load-balancer pool, then each tenant's
 * node ranges), with the ranges that end before they start and those that overlap an earlier one.
 */
function claimAddresses(lab: Lab): { claimed: Claim[]; reversed: Problem[]; overlaps: Problem[] } {
  const claimed: Claim[] = [];
  const reversed: Problem[] = [];
  const clashes: Problem[] = [];
  const claim = (text: string, owner: string, path: (string | number)[]) => {
    const range = parseRange(text);
    if (!range) return;
    if (range.first > range.last) {
      reversed.push({ path, message: 'the range ends before it starts', value: text, fix: 'write the lower address first, e.g. 10.0.0.10-10.0.0.50' });
      return;
    }
    const clash = claimed.find((c) => overlaps(c.range, range));
    if (clash) {
      clashes.push({
        path,
        message: `${owner} overlaps ${clash.owner} (${clash.range.text})`,
        value: text,
        fix: 'give every tenant node range and the load-balancer pool addresses of their own',
      });
    }
    claimed.push({ range, owner, path });
  };
  lab.management.loadBalancer.addresses.forEach((a, i) => claim(a, 'the load-balancer pool', ['management', 'loadBalancer', 'addresses', i]));
  lab.tenants.forEach((t, ti) => {
    t.network?.addresses.forEach((a, i) => claim(a, `the node range of tenant ${t.name}`, ['tenants', ti, 'network', 'addresses', i]));
    for (const [instance, net] of Object.entries(t.networks ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      net.addresses.forEach((a, i) => claim(a, `the node range of tenant ${t.name} on ${instance}`, ['tenants', ti, 'networks', instance, 'addresses', i]));
    }
  });
  return { claimed, reversed, overlaps: clashes };
}
