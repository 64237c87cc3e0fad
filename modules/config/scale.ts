/**
 * How many machines a pool, or one of its node groups (its machines on one node), has: **either**
 * a fixed count (`replicas`) **or** the autoscaler's bounds (`min`, `max`), never one number that
 * means "replicas" for one kind and "min" for the other. Cluster API's topology controller is the
 * model (desired_state.go): an autoscaled MachineDeployment has no replicas of its own, the
 * autoscaler sets them within its bounds.
 *
 * The placement plan carries a scale per pool and per node group (`modules/placement/types.ts`
 * re-exports it as `NodeGroupScale`, `modules/placement` these helpers); it lives here, below
 * placement, because the description's own rules (the tenant quota) count machines the same way.
 * The helpers below are the one place that reads a scale's numbers by kind:
 * test/lint/one-scale.test.ts fails on a `max ?? replicas` written anywhere else.
 */
import type { Pool } from './schema';

export type Scale = { readonly kind: 'fixed'; readonly replicas: number } | { readonly kind: 'autoscaled'; readonly min: number; readonly max: number };

/** The scale a pool of the description asks for: its `autoscaling` bounds, else its `replicas` (0 when neither is set). */
export function poolScale(pool: Pick<Pool, 'replicas' | 'autoscaling'>): Scale {
  return pool.autoscaling ? { kind: 'autoscaled', min: pool.autoscaling.min, max: pool.autoscaling.max } : { kind: 'fixed', replicas: pool.replicas ?? 0 };
}

/** The most machines it can have (what placement reserves capacity for): its replicas, or its max. */
export function machinesAtMost(scale: Scale): number {
  return scale.kind === 'fixed' ? scale.replicas : scale.max;
}

/** The machines it has whatever the autoscaler does: its replicas, or its min. */
export function machinesAtLeast(scale: Scale): number {
  return scale.kind === 'fixed' ? scale.replicas : scale.min;
}

/** Its replicas when fixed; `undefined` ("not set": the autoscaler owns them) when autoscaled. */
export function fixedReplicas(scale: Scale): number | undefined {
  return scale.kind === 'fixed' ? scale.replicas : undefined;
}
