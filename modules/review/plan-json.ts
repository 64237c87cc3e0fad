/**
 * The parts of `tofu show -json <planfile>` a review reads: which resources a plan creates,
 * updates, replaces or destroys, with their values before and after.
 */
export type PlanAction = 'create' | 'update' | 'delete' | 'replace' | 'read' | 'no-op';

export interface TofuPlanJson {
  format_version?: string;
  resource_changes?: {
    address: string;
    type: string;
    name: string;
    mode?: string;
    change: { actions: string[]; before?: unknown; after?: unknown };
  }[];
}

export interface ResourceChange {
  address: string;
  type: string;
  action: PlanAction;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  changes: ResourceChange[];
}

function actionOf(actions: string[]): PlanAction {
  if (actions.includes('delete') && actions.includes('create')) return 'replace';
  if (actions.length === 1 && ['create', 'update', 'delete', 'read', 'no-op'].includes(actions[0])) return actions[0] as PlanAction;
  return 'no-op';
}

const record = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** Counts as `tofu plan` reports them: a replacement is one add and one destroy. Data sources are left out. */
export function summarizePlan(plan: TofuPlanJson): PlanSummary {
  const summary: PlanSummary = { add: 0, change: 0, destroy: 0, changes: [] };
  for (const rc of plan.resource_changes ?? []) {
    if (rc.mode === 'data') continue;
    const action = actionOf(rc.change.actions);
    if (action === 'no-op' || action === 'read') continue;
    if (action === 'create' || action === 'replace') summary.add++;
    if (action === 'delete' || action === 'replace') summary.destroy++;
    if (action === 'update') summary.change++;
    summary.changes.push({ address: rc.address, type: rc.type, action, before: record(rc.change.before), after: record(rc.change.after) });
  }
  summary.changes.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return summary;
}
