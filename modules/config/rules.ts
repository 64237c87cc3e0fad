/**
 * Rules that relate several fields of a lab description: names that must be unique, references
 * that must resolve, ranges that must not overlap. Each returns every problem it finds.
 */
import type { Problem } from './problems';
import { fixedTemplateFor, imageNodes, type Lab } from './schema';
import { parseRange, overlaps, type Ipv4Range } from './ip';
import { checkInstanceNetworks } from './instance-network-rules';
import { checkManagement } from './management-rules';
import { checkSecurityRules } from './security-rules';
import { checkServerRules } from './server-rules';
import { templateVmIdPlan } from './template-ids';
import { checkQuotas } from './quota';

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

export function checkLab(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const instances = lab.proxmox.instances;
  const instanceNames = instances.map((i) => i.name);

  problems.push(...duplicates(instances, (i) => i.name, (i) => ['proxmox', 'instances', i, 'name'], 'instance'));
  instances.forEach((instance, ii) => {
    const base = ['proxmox', 'instances', ii];
    const nodeNames = instance.nodes.map((n) => n.name);
    problems.push(...duplicates(instance.nodes, (n) => n.name, (n) => [...base, 'nodes', n, 'name'], 'node'));
    if ('sourceNode' in instance.template && !nodeNames.includes(instance.template.sourceNode)) {
      problems.push(unknownRef([...base, 'template', 'sourceNode'], `node of instance ${instance.name}`, instance.template.sourceNode, nodeNames));
    }
    if ('templateID' in instance.template) problems.push(...checkFixedTemplates(instance.template, [...base, 'template'], nodeNames));
    if (instance.vmIdRange.end < instance.vmIdRange.start) {
      problems.push({
        path: [...base, 'vmIdRange'],
        message: 'vmIdRange.end is below vmIdRange.start',
        value: instance.vmIdRange,
        fix: 'make end at least start, e.g. { start: 9000, end: 9099 }',
      });
    }
    const size = instance.vmIdRange.end - instance.vmIdRange.start + 1;
    const needed = instance.images.reduce((n, img) => n + imageNodes(instance, img).length, 0);
    if (needed > size && instance.vmIdRange.end >= instance.vmIdRange.start) {
      problems.push({
        path: [...base, 'vmIdRange'],
        message: `the images need ${needed} template VM ids but vmIdRange holds ${size}`,
        value: instance.vmIdRange,
        fix: `widen vmIdRange to at least ${needed} ids`,
      });
    }
    problems.push(
      ...duplicates(instance.images, (img) => img.kubernetesVersion, (i) => [...base, 'images', i, 'kubernetesVersion'], 'image version'),
    );
    if (!('templateID' in instance.template) && instance.images.length > 0 && instance.vmIdRange.end >= instance.vmIdRange.start) {
      const conflicts = templateVmIdPlan(instance.name, instance.vmIdRange, nodeNames, instance.images.map((img) => img.kubernetesVersion)).problems;
      for (const problem of conflicts) problems.push({ ...problem, path: [...base, ...problem.path] });
    }
    instance.images.forEach((img, ix) => {
      // On local disks every node gets its own copy and each machine deployment names its node's by
      // id (nodeTemplateFor); tag selection is used only with shared disks, where it must be unique.
      if ('templateSelector' in instance.template && instance.storage.disksShared && (img.nodes?.length ?? 1) > 1) {
        problems.push({
          path: [...base, 'images', ix, 'nodes'],
          message: `${img.nodes!.length} templates tagged ${img.kubernetesVersion} on one instance: CAPMOX's templateSelector needs exactly one template to match its tags, and fails on several`,
          value: img.nodes,
          fix: 'list one node: with storage.disksShared: true that template clones to every node',
        });
      }
      (img.nodes ?? []).forEach((n, ni) => {
        if (!nodeNames.includes(n)) problems.push(unknownRef([...base, 'images', ix, 'nodes', ni], `node of instance ${instance.name}`, n, nodeNames));
      });
    });
  });

  problems.push(...duplicates(lab.tenants, (t) => t.name, (i) => ['tenants', i, 'name'], 'tenant'));
  lab.tenants.forEach((tenant, ti) => {
    const base = ['tenants', ti];
    (tenant.placement.instances ?? []).forEach((name, k) => {
      if (!instanceNames.includes(name)) problems.push(unknownRef([...base, 'placement', 'instances', k], 'instance', name, instanceNames));
    });
    const checkPools = (pools: readonly Lab['tenants'][number]['pools'][number][], at: (string | number)[]) => {
      problems.push(...duplicates(pools, (p) => p.name, (i) => [...at, i, 'name'], 'pool'));
      pools.forEach((pool, pi) => {
        const pbase = [...at, pi];
        if (pool.replicas === undefined && pool.autoscaling === undefined) {
          problems.push({ path: pbase, message: 'a pool needs replicas or autoscaling', fix: 'add "replicas: 3" or "autoscaling: { min: 0, max: 6 }"' });
        }
        if (pool.replicas !== undefined && pool.autoscaling !== undefined) {
          problems.push({
            path: [...pbase, 'autoscaling'],
            message: 'a pool has either a fixed replicas count or autoscaling bounds, not both',
            fix: 'remove replicas (the autoscaler decides) or remove autoscaling',
          });
        }
        if (pool.autoscaling && pool.autoscaling.min > pool.autoscaling.max) {
          problems.push({
            path: [...pbase, 'autoscaling', 'min'],
            message: `autoscaling.min (${pool.autoscaling.min}) is above autoscaling.max (${pool.autoscaling.max})`,
            value: pool.autoscaling,
            fix: 'make min at most max',
          });
        }
        if (pool.instance !== undefined && !instanceNames.includes(pool.instance)) {
          problems.push(unknownRef([...pbase, 'instance'], 'instance', pool.instance, instanceNames));
        }
      });
    };
    checkPools(tenant.pools, [...base, 'pools']);
    if (tenant.previous?.pools) checkPools(tenant.previous.pools, [...base, 'previous', 'pools']);
    const version = tenant.kubernetesVersion;
    problems.push(...checkPrevious(tenant, base));
    const eligible = tenant.placement.mode === 'Default' ? [instances[0]] : instances.filter((i) => (tenant.placement.instances ?? instanceNames).includes(i.name));
    const pinned = tenant.pools.map((p) => p.instance).filter((n): n is string => n !== undefined);
    for (const instance of instances.filter((i) => eligible.includes(i) || pinned.includes(i.name))) {
      // An empty sourceNode is lenient.ts's stand-in for a template the schema refused (reported there).
      const templateInError = 'sourceNode' in instance.template && instance.template.sourceNode === '';
      const before = tenant.previous?.kubernetesVersion;
      if (!templateInError && before && before !== version && !hasTemplateFor(instance, before)) {
        const at = `proxmox.instances[${instances.indexOf(instance)}]`;
        problems.push({
          path: [...base, 'previous', 'kubernetesVersion'],
          message: `instance ${instance.name} has no template for ${before}, which the retiring machine deployments of tenant ${tenant.name} are made from (their worker templates must stay as they are until you remove previous)`,
          value: before,
          fix: `keep the ${before} template of ${at} (its image, tag or versions entry) until the retire step, or correct previous.kubernetesVersion to the version the workers run`,
        });
      }
      if (!templateInError && !hasTemplateFor(instance, version)) {
        const at = `proxmox.instances[${instances.indexOf(instance)}]`;
        problems.push({
          path: [...base, 'kubernetesVersion'],
          message: `instance ${instance.name} has no template for ${version}`,
          value: version,
          fix:
            'templateID' in instance.template
              ? `give ${at}.template a kubernetesVersion (the version of the kubeadm and kubelet in template ${instance.template.templateID}), or add { kubernetesVersion: ${version}, templateID: <id> } to ${at}.template.versions, or choose another version`
              : `add an image for ${version} to ${at}.images, or set its templateSelector tags to include ${version}, or choose another version`,
        });
      }
    }
  });

  problems.push(...checkAddresses(lab));
  problems.push(...checkQuotas(lab));
  problems.push(...checkInstanceNetworks(lab));
  problems.push(...checkManagement(lab));
  problems.push(...checkServerRules(lab));
  problems.push(...checkSecurityRules(lab));
  if (lab.delivery.backend === 'cloud' && !lab.delivery.cloud) {
    problems.push({
      path: ['delivery', 'cloud'],
      message: 'backend is cloud but there is no cloud section',
      fix: 'add delivery.cloud: { organization: <org>, workspacePrefix: <prefix> }, or use backend: local',
    });
  }
  return problems;
}

const VERSION_PARTS = /^v(\d+)\.(\d+)\.(\d+)$/;

/**
 * `previous` (surge, then retire; docs/tenants.md): the retiring workers may be older than the
 * control plane, never newer (a kubelet newer than the API server is outside the skew policy), and
 * at most one minor older (the control plane moves one minor per change; modules/foresight/upgrade.ts).
 */
function checkPrevious(tenant: Lab['tenants'][number], base: (string | number)[]): Problem[] {
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
        path,
        message: `previous.kubernetesVersion ${before} is newer than the tenant's ${tenant.kubernetesVersion}: the control plane would run ${tenant.kubernetesVersion} under workers of ${before}, and no kubelet may be newer than its API server (nor does CAPI downgrade a control plane)`,
        value: before,
        fix: `set previous.kubernetesVersion to the version the workers run now, and kubernetesVersion to the one they move to (at most one minor newer)`,
      },
    ];
  }
  if (bmin - amin > 1) {
    return [
      {
        path,
        message: `tenant ${tenant.name} would move from ${before} to ${tenant.kubernetesVersion}, ${bmin - amin} minor versions at once; the control plane moves one minor per change`,
        value: before,
        fix: `upgrade one minor at a time: first kubernetesVersion v${bmaj}.${amin + 1}.<patch> with previous.kubernetesVersion ${before}, remove previous once the new Nodes are Ready, then the next minor (npm run upgrade-plan shows each step)`,
      },
    ];
  }
  return [];
}

type FixedTemplateForm = Extract<Lab['proxmox']['instances'][number]['template'], { templateID: number }>;

/** The per-version templates of a `{ sourceNode, templateID }` instance: known nodes, one template per version. */
function checkFixedTemplates(template: FixedTemplateForm, path: (string | number)[], nodeNames: string[]): Problem[] {
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
    if (v.sourceNode !== undefined && !nodeNames.includes(v.sourceNode)) problems.push(unknownRef([...path, 'versions', i, 'sourceNode'], 'node', v.sourceNode, nodeNames));
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

function checkAddresses(lab: Lab): Problem[] {
  const problems: Problem[] = [];
  const claimed: { range: Ipv4Range; owner: string; path: (string | number)[] }[] = [];
  const claim = (text: string, owner: string, path: (string | number)[]) => {
    const range = parseRange(text);
    if (!range) return;
    if (range.first > range.last) {
      problems.push({ path, message: 'the range ends before it starts', value: text, fix: 'write the lower address first, e.g. 10.0.0.10-10.0.0.50' });
      return;
    }
    const clash = claimed.find((c) => overlaps(c.range, range));
    if (clash) {
      problems.push({
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
  const vips = new Map<string, string>();
  lab.tenants.forEach((t, ti) => {
    const vip = t.vip;
    if (!vip) return;
    const other = vips.get(vip);
    if (other) problems.push({ path: ['tenants', ti, 'vip'], message: `VIP ${vip} is already the VIP of tenant ${other}`, value: vip, fix: 'give each tenant its own VIP, or leave vip out to allocate one' });
    vips.set(vip, t.name);
    const at = parseRange(vip);
    const inNodes = at && claimed.find((c) => c.owner.startsWith('the node range') && overlaps(c.range, at));
    if (inNodes) problems.push({ path: ['tenants', ti, 'vip'], message: `VIP ${vip} lies in ${inNodes.owner}`, value: vip, fix: 'take the VIP from management.loadBalancer.addresses' });
  });
  return problems;
}
