/**
 * The scale of a pool or node group in the plan (`NodeGroupScale`, types.ts) and the helpers that
 * read it: defined in modules/config/scale.ts (the description's quota rule counts machines the
 * same way, and config sits below placement); every layer above takes them from here.
 */
export { fixedReplicas, machinesAtLeast, machinesAtMost, poolScale } from '../config/scale';
export type { Scale } from '../config/scale';
