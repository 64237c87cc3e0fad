/**
 * The parts of `tofu show -json <planfile>` a review reads: which resources a plan creates,
 * updates, replaces or destroys, with their values before and after.
 */
/** `unknown`: actions this review does not know (a newer OpenTofu's `forget`, …): always listed, never read as no change. */
export type PlanAction = 'create' | 'update' | 'delete' | 'replace' | 'read' | 'no-op' | 'unknown';

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
  /** The plan's own actions, as it lists them. */
  actions: string[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  changes: ResourceChange[];
}

/** A file given as a plan that is not one: the file, what is wrong, and how to make a plan file. */
export class PlanFormatError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: not a plan: ${problem}\n  fix: write it with \`tofu show -json <planfile>\` (the planfile from \`tofu plan -out=<planfile>\`)`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks that parsed JSON is `tofu show -json` of a plan (not of state, not `{}`), and returns it.
 * A plan has `format_version`, `terraform_version` and `planned_values`; every resource change has an
 * address, a type and a list of actions. Anything else is refused: a review must never read a
 * wrong file as "no changes".
 */
export function checkPlanJson(value: unknown, file: string): TofuPlanJson {
  if (!isRecord(value))
    throw new PlanFormatError(file, `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  if (typeof value.format_version !== 'string' || typeof value.terraform_version !== 'string') {
    throw new PlanFormatError(file, 'it has no format_version and terraform_version');
  }
  if (!isRecord(value.planned_values)) {
    throw new PlanFormatError(
      file,
      isRecord(value.values) ? 'it is the JSON of a state (`values`), not of a plan (`planned_values`)' : 'it has no planned_values',
    );
  }
  if (value.resource_changes !== undefined) {
    if (!Array.isArray(value.resource_changes)) throw new PlanFormatError(file, 'resource_changes is not a list');
    value.resource_changes.forEach((rc, i) => {
      const ok =
        isRecord(rc) &&
        typeof rc.address === 'string' &&
        typeof rc.type === 'string' &&
        isRecord(rc.change) &&
        Array.isArray(rc.change.actions) &&
        rc.change.actions.every((a) => typeof a === 'string');
      if (!ok) throw new PlanFormatError(file, `resource_changes[${i}] has no address, type or change.actions`);
    });
  }
  return value as TofuPlanJson;
}

function actionOf(actions: string[]): PlanAction {
  if (actions.length === 2 && actions.includes('delete') && actions.includes('create')) return 'replace';
  if (actions.length === 1 && ['create', 'update', 'delete', 'read', 'no-op'].includes(actions[0])) return actions[0] as PlanAction;
  return 'unknown';
}

const record = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Counts as `tofu plan` reports them: a replacement is one add and one destroy; an unknown action is listed but not counted. Data sources are left out. */
export function summarizePlan(plan: TofuPlanJson): PlanSummary {
  const summary: PlanSummary = { add: 0, change: 0, destroy: 0, changes: [] };
  for (const rc of plan.resource_changes ?? []) {
    if (rc.mode === 'data') continue;
    const action = actionOf(rc.change.actions);
    if (action === 'no-op' || action === 'read') continue;
    if (action === 'create' || action === 'replace') summary.add++;
    if (action === 'delete' || action === 'replace') summary.destroy++;
    if (action === 'update') summary.change++;
    summary.changes.push({
      address: rc.address,
      type: rc.type,
      action,
      actions: [...rc.change.actions],
      before: record(rc.change.before),
      after: record(rc.change.after),
    });
  }
  summary.changes.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return summary;
}
