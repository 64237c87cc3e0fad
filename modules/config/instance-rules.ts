/**
 * The lab rules of the Proxmox instances: names, template sources and versions, the endpoint, the
 * vmIdRange and the images built into templates. Each is one entry of `INSTANCE_RULES` (listed in
 * the rule table, modules/config/rule-table.ts, before the tenants' ./rules.ts) and returns every
 * problem it finds.
 */
import type { Problem } from './problems';
import { imageNodes, type Lab } from './schema';
import type { LabRule } from './rule';
import { duplicates, perInstance, unknownRef, type Instance } from './rule-helpers';
import { templateVmIdPlan } from './template-ids';

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

/** The rules of the instances that relate several fields (names, references, ranges, templates, images). */
export const INSTANCE_RULES: readonly LabRule[] = [
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
];
