/**
 * Placement: machine-to-instance-and-node distribution decided at synth time, with its report,
 * picture and diff. Pure functions, no I/O; see docs/placement.md for the rules.
 */
export { planPlacement, planPlacementPartial, placementTitle, haVerdict, haConditions, compareNames } from './plan';
export { diffPlacement, isEmptyDiff } from './diff';
export { explainTenant, explainHa } from './explain';
export { capacityLedger } from './ledger';
export type { CapacityLedger, LedgerEntry, NodeHeadroom } from './ledger';
export { renderJson, ledgerJson, planFromJson } from './render-json';
export { machinesAtMost, machinesAtLeast, fixedReplicas, poolScale } from './scale';
export { renderMarkdown, renderDiffMarkdown, ledgerSection, formatMiB } from './render-markdown';
export { renderSvg } from './render-svg';
export type { SvgOptions } from './render-svg';
export type * from './types';
