/**
 * Placement: machine-to-instance-and-node distribution decided at synth time, with its report,
 * picture and diff. Pure functions, no I/O; see docs/placement.md for the rules.
 */
export { planPlacement, PlacementError, haVerdict, compareNames } from './plan';
export { diffPlacement, isEmptyDiff } from './diff';
export { explainTenant, explainHa } from './explain';
export { renderJson } from './render-json';
export { renderMarkdown, renderDiffMarkdown } from './render-markdown';
export { renderSvg } from './render-svg';
export type * from './types';
