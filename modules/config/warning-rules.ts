/**
 * Warning rules: what a lab description may say, but probably did not mean. Each has an id, what
 * it warns about, the fix and a firing fixture (test/config/rule-fixtures.ts, WARNING_FIXTURES), like
 * the rules of the rule table (modules/config/rule-table.ts); docs/rules.md lists them after the
 * rules. They never refuse: `labWarnings` (./safety.ts) returns their problems with severity
 * `warning`, and the commands print them and go on.
 */
import type { Problem } from './problems';
import type { LabRule } from './rule';
import type { Lab } from './schema';
import { possibleInstances } from './tenant-instances';
import { heldVersionWarnings } from './held-version';

/** The Kubernetes versions tenants run (or still run, in previous) on an instance. */
function versionsUsedOn(lab: Lab, instance: string): Set<string> {
  const used = new Set<string>();
  for (const tenant of lab.tenants) {
    if (!possibleInstances(lab, tenant).includes(instance)) continue;
    used.add(tenant.kubernetesVersion);
    if (tenant.previous?.kubernetesVersion) used.add(tenant.previous.kubernetesVersion);
  }
  return used;
}

export const WARNING_RULES: readonly LabRule[] = [
  {
    id: 'image.unused',
    refuses:
      'an image on a templateSelector instance that no tenant on that instance runs (kubernetesVersion or previous.kubernetesVersion): the instance stack downloads and builds it all the same',
    fix: 'remove the image, unless it is there ahead of an upgrade to that version',
    check: (lab) =>
      lab.proxmox.instances.flatMap((instance, ii): Problem[] => {
        if (!('templateSelector' in instance.template)) return [];
        const used = versionsUsedOn(lab, instance.name);
        return instance.images.flatMap((image, ix): Problem[] =>
          used.has(image.kubernetesVersion)
            ? []
            : [
                {
                  path: ['proxmox', 'instances', ii, 'images', ix, 'kubernetesVersion'],
                  message:
                    `image ${image.kubernetesVersion} of instance ${instance.name} is built into a template, but no tenant runs ${image.kubernetesVersion} there` +
                    (used.size > 0 ? ` (they run ${[...used].sort().join(', ')})` : ' (no tenant puts machines on it)'),
                  value: image.kubernetesVersion,
                  fix: `remove proxmox.instances[${ii}].images[${ix}], unless it is built ahead of an upgrade to ${image.kubernetesVersion}`,
                  severity: 'warning',
                },
              ],
        );
      }),
  },
  {
    id: 'surge.held-cannot-heal',
    refuses:
      "a held-back node group (previous.stage.hold) of a staged surge of an upgrade: until its own step it cannot replace a lost machine (CAPI's MachineSet preflight refuses an old-version machine beside the moved control plane)",
    fix: 'if it loses a machine, surge it next (the previous the warning names); or, before step 1, make room so the groups surge together',
    check: heldVersionWarnings,
  },
];

/** The warning rules by home, for docs/rules.md. */
export const WARNING_HOMES: readonly { home: string; rules: readonly LabRule[] }[] = [{ home: 'modules/config/warning-rules.ts', rules: WARNING_RULES }];

/** Every warning of the warning rules, each tagged with its rule id and severity `warning`. */
export function checkWarnings(lab: Lab): Problem[] {
  return WARNING_RULES.flatMap((rule) => rule.check(lab).map((p): Problem => ({ ...p, rule: rule.id, severity: 'warning' })));
}
