/** Template VM ids of an instance's node templates: pure, shared by the lab checks and the instance stack. */

import { ProblemError, type Problem } from './problems';

/**
 * Template VM ids for every image and node of an instance, from its vmIdRange.
 *
 * The range is cut into one block per version slot, each block holding one id per node (nodes in
 * name order). A version's slot depends only on the version: (minor mod A) × B + (patch mod B),
 * with A = min(4, slots) minor versions and B = slots / A patch versions per minor. So adding or
 * removing a version never moves another one; two versions collide only when their minors differ
 * by a multiple of A and their patches by a multiple of B, which is reported at synth with the fix.
 * Changing the node list or the range renumbers every template (they are rebuilt, and CAPMOX finds
 * them by tags, not ids).
 */
export function templateVmIds(
  instanceName: string,
  range: { start: number; end: number },
  nodes: string[],
  versions: string[],
): Map<string, Map<string, number>> {
  const { ids, problems } = templateVmIdPlan(instanceName, range, nodes, versions);
  if (problems.length > 0) throw new ProblemError(problems, { title: `instance ${instanceName}: template VM ids conflict` });
  return ids;
}

/**
 * The ids `templateVmIds` gives, and the conflicts instead of throwing them: each a problem with
 * its fix, at the path of the range (`vmIdRange`; the caller puts the instance in front).
 */
export function templateVmIdPlan(
  instanceName: string,
  range: { start: number; end: number },
  nodes: string[],
  versions: string[],
): { ids: Map<string, Map<string, number>>; problems: Problem[] } {
  const sortedNodes = [...new Set(nodes)].sort();
  const size = range.end - range.start + 1;
  const slots = Math.floor(size / sortedNodes.length);
  if (slots < 1) {
    return {
      ids: new Map(),
      problems: [
        {
          path: ['vmIdRange'],
          message: `instance ${instanceName}: vmIdRange ${range.start}-${range.end} is smaller than its ${sortedNodes.length} nodes`,
          value: range,
          fix: `widen vmIdRange to at least ${sortedNodes.length} ids (one per node and version)`,
          rule: 'vmid-range.template-ids-collide',
        },
      ],
    };
  }
  const minors = Math.min(4, slots);
  const patches = Math.floor(slots / minors);
  const slotOf = (version: string) => {
    const m = /^v1\.(\d+)\.(\d+)$/.exec(version);
    if (!m) throw new Error(`not a Kubernetes version: ${version}`);
    return (Number(m[1]) % minors) * patches + (Number(m[2]) % patches);
  };
  const ids = new Map<string, Map<string, number>>();
  const bySlot = new Map<number, string>();
  const problems: Problem[] = [];
  for (const version of [...new Set(versions)].sort()) {
    const slot = slotOf(version);
    const other = bySlot.get(slot);
    if (other !== undefined) {
      problems.push({
        path: ['vmIdRange'],
        message:
          `instance ${instanceName}: images ${other} and ${version} would share template VM ids ${range.start + slot * sortedNodes.length}-${range.start + slot * sortedNodes.length + sortedNodes.length - 1} ` +
          `(vmIdRange ${range.start}-${range.end} with ${sortedNodes.length} nodes fits ${minors} minor × ${patches} patch versions)`,
        value: range,
        fix: 'drop one of them, or widen vmIdRange (that renumbers and rebuilds every template)',
        rule: 'vmid-range.template-ids-collide',
      });
      continue;
    }
    bySlot.set(slot, version);
    ids.set(version, new Map(sortedNodes.map((node, rank) => [node, range.start + slot * sortedNodes.length + rank])));
  }
  return { ids, problems };
}
