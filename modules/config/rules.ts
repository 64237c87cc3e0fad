/**
 * Rules that relate several fields of a lab description: names that must be unique, references
 * that must resolve, ranges that must not overlap, templates for every version. Each is one entry
 * of `LAB_RULES` (listed in the rule table, modules/config/rule-table.ts) and returns every problem it finds.
 */
import type { Problem } from './problems';
import { IMAGE_TEMPLATE_DISK_GIB, fixedTemplateFor, imageNodes, type Lab } from './schema';
import { parseRange, overlaps, type Ipv4Range } from './ip';
import type { LabRule } from './rule';
import { templateVmIdPlan } from './template-ids';
import { possibleInstances } from './tenant-instances';

function duplicates<T>(items: readonly T[], key: (item: T) => string, path: (i: number) => (string | number)[], what: string): Problem[] {
  const seen = new Map<string, number>();
  const problems: Problem[] = [];
  items.forEach((item, i) => {
    const k = key(item);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, i);
    else
      problems.push({
        path: path(i),
        message: `${what} "${k}" is used twice (first at index ${first})`,
        value: k,
        fix: `give each ${what} a unique name`,
      });
  });
  return problems;
}

function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

function unknownRef(path: (string | number)[], what: string, name: string, known: readonly string[]): Problem {
  const guess = closest(name, known);
  return {
    path,
    message: `unknown ${what} "${name}"`,
    value: name,
    fix: guess ? `did you mean "${guess}"? Known: ${known.join(', ')}` : `use one of: ${known.join(', ')}`,
  };
}

type Instance = Lab['proxmox']['instances'][number];
type Tenant = Lab['tenants'][number];
type Pool = Tenant['pools'][number];

/** The problems of every instance, each found with the instance, its path and its node names. */
function perInstance(lab: Lab, check: (instance: Instance, base: (string | number)[], nodeNames: string[]) => Problem[]): Problem[] {
  return lab.proxmox.instances.flatMap((instance, ii) =>
    check(
      instance,
      ['proxmox', 'instances', ii],
      instance.nodes.map((n) => n.name),
    ),
  );
}

/** The problems of every tenant. */
function perTenant(lab: Lab, check: (tenant: Tenant, base: (string | number)[]) => Problem[]): Problem[] {
  return lab.tenants.flatMap((tenant, ti) => check(tenant, ['tenants', ti]));
}

/** The problems of every pool of every tenant, its current pools and those of `previous`. */
function perPool(lab: Lab, check: (pool: Pool, at: (string | number)[], tenant: Tenant) => Problem[]): Problem[] {
  return perTenant(lab, (tenant, base) => [
    ...tenant.pools.flatMap((pool, pi) => check(pool, [...base, 'pools', pi], tenant)),
    ...(tenant.previous?.pools ?? []).flatMap((pool, pi) => check(pool, [...base, 'previous', 'pools', pi], tenant)),
  ]);
}

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

const rangeInOrder = (instance: Instance) => instance.vmIdRange.end >= instance.vmIdRange.start;

/** How many template VMs the instance stack builds from an instance's images: one per image and node. */
const imageTemplateCount = (instance: Instance) => instance.images.reduce((n, img) => n + imageNodes(instance, img).length, 0);

/** `proxmox.instances[1].vmIdRange`, as a person finds it in the description. */
const dotted = (path: (string | number)[]) => path.join('.').replace(/\.(\d+)/g, '[$1]');

/** The endpoint with a trailing `/api2/json` (and what follows it) taken off, or undefined when it has none. */
export function endpointWithoutApiPath(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  const at = url.pathname.search(/\/api2\/json(\/|$)/i);
  if (at < 0) return undefined;
  return `${url.protocol}//${url.host}${url.pathname.slice(0, at)}/`;
}

/** The existing templates (VM ids) an instance names: its template's, its versions', and those of previous.instances. */
function existingTemplateIds(lab: Lab, instance: Instance, base: (string | number)[]): { id: number; path: (string | number)[] }[] {
  const found: { id: number; path: (string | number)[] }[] = [];
  const add = (t: Instance['template'] | undefined, at: (string | number)[]) => {
    if (!t || !('templateID' in t)) return;
    found.push({ id: t.templateID, path: [...at, 'templateID'] });
    (t.versions ?? []).forEach((v, i) => found.push({ id: v.templateID, path: [...at, 'versions', i, 'templateID'] }));
  };
  add(instance.template, [...base, 'template']);
  lab.tenants.forEach((tenant, ti) => {
    const was = tenant.previous?.instances?.[instance.name];
    if (was?.template) add(was.template, ['tenants', ti, 'previous', 'instances', instance.name, 'template']);
  });
  return found;
}

/** A range of `size` ids that holds none of `taken`, for a fix: above the highest taken id. */
function freeRange(size: number, taken: number[]): { start: number; end: number } {
  const start = Math.max(9000, Math.ceil((Math.max(...taken) + 1) / 100) * 100);
  return { start, end: start + size - 1 };
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
    id: 'instance.name-twice',
    refuses: 'two Proxmox instances with one name',
    fix: 'give each instance a unique name',
    check: (lab) =>
      duplicates(
        lab.proxmox.instances,
        (i) => i.name,
        (i) => ['proxmox', 'instances', i, 'name'],
        'instance',
      ),
  },
  {
    id: 'node.name-twice',
    refuses: 'two nodes of one instance with one name',
    fix: 'give each node of an instance a unique name',
    check: (lab) =>
      perInstance(lab, (instance, base) =>
        duplicates(
          instance.nodes,
          (n) => n.name,
          (n) => [...base, 'nodes', n, 'name'],
          'node',
        ),
      ),
  },
  {
    id: 'template.unknown-source-node',
    refuses: 'a template.sourceNode (or a template.versions[].sourceNode) that is not a node of its instance',
    fix: 'name one of the nodes of the instance',
    check: (lab) =>
      perInstance(lab, (instance, base, nodeNames) => {
        const problems: Problem[] = [];
        if ('sourceNode' in instance.template && !nodeNames.includes(instance.template.sourceNode)) {
          problems.push(unknownRef([...base, 'template', 'sourceNode'], `node of instance ${instance.name}`, instance.template.sourceNode, nodeNames));
        }
        if ('templateID' in instance.template) {
          (instance.template.versions ?? []).forEach((v, i) => {
            if (v.sourceNode !== undefined && !nodeNames.includes(v.sourceNode)) {
              problems.push(unknownRef([...base, 'template', 'versions', i, 'sourceNode'], 'node', v.sourceNode, nodeNames));
            }
          });
        }
        return problems;
      }),
  },
  {
    id: 'template.version-twice',
    refuses: 'two existing templates (template.kubernetesVersion, template.versions) for one Kubernetes version',
    fix: 'keep one template per Kubernetes version',
    check: (lab) =>
      perInstance(lab, (instance, base) => ('templateID' in instance.template ? checkFixedTemplates(instance.template, [...base, 'template']) : [])),
  },
  {
    id: 'instance.endpoint-api-path',
    refuses: 'an instance endpoint that ends in /api2/json: the bpg/proxmox provider and CAPMOX add that path themselves, so every call would fail at deploy',
    fix: 'write the endpoint without the path, e.g. https://pve.lab.example:8006/',
    check: (lab) =>
      perInstance(lab, (instance, base) => {
        const fixed = endpointWithoutApiPath(instance.endpoint);
        if (fixed === undefined) return [];
        return [
          {
            path: [...base, 'endpoint'],
            message:
              `the endpoint of instance ${instance.name} ends in /api2/json: the bpg/proxmox provider and CAPMOX add /api2/json to it themselves, ` +
              'so every call would go to /api2/json/api2/json/… and fail only at deploy',
            value: instance.endpoint,
            fix: `write endpoint: ${fixed}`,
          },
        ];
      }),
  },
  {
    id: 'template.id-in-vmid-range',
    refuses:
      'an existing template (template.templateID, template.versions[].templateID, previous.instances.<instance>.template) whose VM id lies inside the vmIdRange pvekaas builds its own templates in',
    fix: 'move vmIdRange off the ids of existing VMs (or correct the templateID)',
    check: (lab) =>
      perInstance(lab, (instance, base) => {
        if (!rangeInOrder(instance)) return [];
        const { start, end } = instance.vmIdRange;
        const ids = existingTemplateIds(lab, instance, base);
        const inside = ids.filter((t) => t.id >= start && t.id <= end);
        const suggestion = freeRange(end - start + 1, ids.map((t) => t.id).concat(end));
        return inside.map((t) => ({
          path: t.path,
          message:
            `template ${t.id} of instance ${instance.name} lies inside its vmIdRange ${start}-${end}, the VM ids pvekaas gives the templates it builds from images: ` +
            'the instance stack would try to create a VM with an id Proxmox VE already has (or, once it builds templates there, take the id of this one)',
          value: t.id,
          fix: `set ${dotted([...base, 'vmIdRange'])} to ids no VM of ${instance.name} has, e.g. vmIdRange: { start: ${suggestion.start}, end: ${suggestion.end} }, or correct the templateID`,
        }));
      }),
  },
  {
    id: 'image.not-built',
    refuses:
      'images on an instance whose template is { sourceNode, templateID }: pvekaas builds images only for templateSelector (it finds what it built by tags), so they would silently never be built',
    fix: 'remove images, or select templates by tags: template: { templateSelector: { matchTags: [capi, <version>] } }',
    check: (lab) =>
      perInstance(lab, (instance, base) => {
        const t = instance.template;
        if (!('templateID' in t) || instance.images.length === 0) return [];
        const versions = instance.images.map((img) => img.kubernetesVersion);
        return [
          {
            path: [...base, 'images'],
            message:
              `instance ${instance.name} names an existing template (template ${t.templateID}), so its images (${versions.join(', ')}) are never built: ` +
              'pvekaas builds images only when the instance selects its templates by tags (templateSelector), and its machines are cloned from template ' +
              `${t.templateID}${(t.versions ?? []).length > 0 ? ' and the template.versions entries' : ''}`,
            value: versions,
            fix:
              `remove ${dotted([...base, 'images'])}; or, to have pvekaas build and use them, write ${dotted([...base, 'template'])}: ` +
              `{ templateSelector: { matchTags: [capi, ${versions[0]}] } } (a change of template: surge first, docs/tenants.md)`,
          },
        ];
      }),
  },
  {
    id: 'vmid-range.reversed',
    refuses: 'a vmIdRange whose end is below its start',
    fix: 'make end at least start, e.g. { start: 9000, end: 9099 }',
    check: (lab) =>
      perInstance(lab, (instance, base) =>
        rangeInOrder(instance)
          ? []
          : [
              {
                path: [...base, 'vmIdRange'],
                message: 'vmIdRange.end is below vmIdRange.start',
                value: instance.vmIdRange,
                fix: 'make end at least start, e.g. { start: 9000, end: 9099 }',
              },
            ],
      ),
  },
  {
    id: 'vmid-range.too-small',
    refuses: 'a vmIdRange with fewer ids than the templates of its images need (one per image and node)',
    fix: 'widen vmIdRange',
    check: (lab) =>
      perInstance(lab, (instance, base) => {
        // With { sourceNode, templateID } nothing is built from images (rule image.not-built).
        if ('templateID' in instance.template) return [];
        const size = instance.vmIdRange.end - instance.vmIdRange.start + 1;
        const needed = imageTemplateCount(instance);
        if (needed <= size || !rangeInOrder(instance)) return [];
        return [
          {
            path: [...base, 'vmIdRange'],
            message: `the images need ${needed} template VM ids but vmIdRange holds ${size}`,
            value: instance.vmIdRange,
            fix: `widen vmIdRange to at least ${needed} ids`,
          },
        ];
      }),
  },
  {
    id: 'image.version-twice',
    refuses: 'two images of one instance for one Kubernetes version',
    fix: 'keep one image per Kubernetes version',
    check: (lab) =>
      perInstance(lab, (instance, base) =>
        duplicates(
          instance.images,
          (img) => img.kubernetesVersion,
          (i) => [...base, 'images', i, 'kubernetesVersion'],
          'image version',
        ),
      ),
  },
  {
    id: 'vmid-range.template-ids-collide',
    refuses: 'a vmIdRange too small for its nodes, or two image versions whose template VM ids would be the same (modules/config/template-ids.ts)',
    fix: 'drop one of the images, or widen vmIdRange (that renumbers and rebuilds every template)',
    check: (lab) =>
      perInstance(lab, (instance, base, nodeNames) => {
        if ('templateID' in instance.template || instance.images.length === 0 || !rangeInOrder(instance)) return [];
        // Fewer ids than the templates need: vmid-range.too-small says so, with the size to widen it to.
        if (imageTemplateCount(instance) > instance.vmIdRange.end - instance.vmIdRange.start + 1) return [];
        const versions = instance.images.map((img) => img.kubernetesVersion);
        return templateVmIdPlan(instance.name, instance.vmIdRange, nodeNames, versions).problems.map((p) => ({ ...p, path: [...base, ...p.path] }));
      }),
  },
  {
    id: 'image.several-tagged-templates',
    refuses: "an image with several nodes on shared disks with templateSelector: CAPMOX's selector needs exactly one template per tag set",
    fix: 'list one node: with storage.disksShared: true that template clones to every node',
    check: (lab) =>
      perInstance(lab, (instance, base) =>
        // On local disks every node gets its own copy and each machine deployment names its node's by
        // id (nodeTemplateFor); tag selection is used only with shared disks, where it must be unique.
        !('templateSelector' in instance.template) || !instance.storage.disksShared
          ? []
          : instance.images.flatMap((img, ix): Problem[] =>
              (img.nodes?.length ?? 1) > 1
                ? [
                    {
                      path: [...base, 'images', ix, 'nodes'],
                      message:
                        `${img.nodes!.length} templates tagged ${img.kubernetesVersion} on one instance: ` +
                        "CAPMOX's templateSelector needs exactly one template to match its tags, and fails on several",
                      value: img.nodes,
                      fix: 'list one node: with storage.disksShared: true that template clones to every node',
                    },
                  ]
                : [],
            ),
      ),
  },
  {
    id: 'image.unknown-node',
    refuses: 'an image node that is not a node of its instance',
    fix: 'name nodes of the instance in images[].nodes',
    check: (lab) =>
      perInstance(lab, (instance, base, nodeNames) =>
        instance.images.flatMap((img, ix) =>
          (img.nodes ?? []).flatMap((n, ni) =>
            nodeNames.includes(n) ? [] : [unknownRef([...base, 'images', ix, 'nodes', ni], `node of instance ${instance.name}`, n, nodeNames)],
          ),
        ),
      ),
  },
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

type FixedTemplateForm = Extract<Lab['proxmox']['instances'][number]['template'], { templateID: number }>;

/** The per-version templates of a `{ sourceNode, templateID }` instance: one template per version. */
function checkFixedTemplates(template: FixedTemplateForm, path: (string | number)[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, string>();
  if (template.kubernetesVersion) seen.set(template.kubernetesVersion, 'kubernetesVersion');
  (template.versions ?? []).forEach((v, i) => {
    const other = seen.get(v.kubernetesVersion);
    if (other) {
      problems.push({
        path: [...path, 'versions', i, 'kubernetesVersion'],
        message: `a second template for ${v.kubernetesVersion} (the first is at template.${other}): CAPMOX clones one template per machine`,
        value: v.kubernetesVersion,
        fix: 'keep one template per Kubernetes version',
      });
    }
    seen.set(v.kubernetesVersion, `versions[${i}]`);
  });
  return problems;
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
