/**
 * The plan as a picture: one row per instance, one card per node, and on each card a cpu bar and
 * a memory bar split by tenant, so a full or lopsided node shows at a glance.
 */
import { formatMiB } from './render-markdown';
import type { NodeUsage, PlacementPlan } from './types';

/** Tableau 10: distinguishable, and readable with the most common colour-vision deficiencies. */
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
/** Palette entries too light for white labels. */
const LIGHT = new Set(['#76b7b2', '#edc948', '#ff9da7', '#bab0ac']);

const MARGIN = 24;
const CARD_WIDTH = 248;
const CARD_HEIGHT = 118;
const GAP = 16;
const BAR_WIDTH = CARD_WIDTH - 24;
const BAR_HEIGHT = 16;
const ROW_HEADER = 28;
/** Rough width of one character at 12px in a sans-serif font, for wrapping the legend. */
const CHAR_WIDTH = 7;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Fixed precision keeps the bytes the same on every platform. */
const num = (n: number) => String(Number(n.toFixed(2)));

function percent(planned: number, capacity: number): string {
  return capacity === 0 ? 'no capacity' : `${Math.round((planned / capacity) * 100)}%`;
}

function bar(
  x: number,
  y: number,
  capacity: number,
  segments: { tenant: string; amount: number }[],
  colour: (tenant: string) => string,
  unit: (n: number) => string,
): string[] {
  const out = [`<rect x="${num(x)}" y="${num(y)}" width="${BAR_WIDTH}" height="${BAR_HEIGHT}" fill="#eeeeee" stroke="#999999" stroke-width="0.5"/>`];
  let at = x;
  for (const segment of segments) {
    if (segment.amount === 0 || capacity === 0) continue;
    const width = (segment.amount / capacity) * BAR_WIDTH;
    out.push(
      `<rect x="${num(at)}" y="${num(y)}" width="${num(width)}" height="${BAR_HEIGHT}" fill="${colour(segment.tenant)}">` +
        `<title>${escapeXml(`${segment.tenant}: ${unit(segment.amount)}`)}</title></rect>`,
    );
    if (width >= segment.tenant.length * 6 + 6) {
      out.push(
        `<text x="${num(at + 3)}" y="${num(y + 12)}" font-size="10" fill="${LIGHT.has(colour(segment.tenant)) ? '#222222' : '#ffffff'}">${escapeXml(segment.tenant)}</text>`,
      );
    }
    at += width;
  }
  return out;
}

function card(node: NodeUsage, x: number, y: number, colour: (tenant: string) => string, lost = false): string[] {
  const cpu = node.tenants.map((t) => ({ tenant: t.name, amount: t.cpu }));
  const memory = node.tenants.map((t) => ({ tenant: t.name, amount: t.memoryMiB }));
  const left = x + 12;
  if (lost) {
    // A lost node: its name struck through, the card crossed out, nothing planned on it.
    return [
      `<g>`,
      `<rect x="${x}" y="${y}" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" rx="6" fill="#f4f4f4" stroke="#c0392b" stroke-dasharray="6 4"/>`,
      `<text x="${left}" y="${y + 20}" font-size="13" font-weight="bold" fill="#777777" text-decoration="line-through">${escapeXml(node.node)}</text>`,
      `<line x1="${left}" y1="${y + 16}" x2="${left + node.node.length * 8}" y2="${y + 16}" stroke="#c0392b" stroke-width="1.5"/>`,
      `<line x1="${x}" y1="${y}" x2="${x + CARD_WIDTH}" y2="${y + CARD_HEIGHT}" stroke="#c0392b" stroke-width="1.5"/>`,
      `<line x1="${x}" y1="${y + CARD_HEIGHT}" x2="${x + CARD_WIDTH}" y2="${y}" stroke="#c0392b" stroke-width="1.5"/>`,
      `<text x="${left}" y="${y + 60}" font-size="12" fill="#c0392b">lost: nothing can run here</text>`,
      `<title>${escapeXml(`${node.node} (${node.instance}) is lost`)}</title>`,
      `</g>`,
    ];
  }
  return [
    `<g>`,
    `<rect x="${x}" y="${y}" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" rx="6" fill="#ffffff" stroke="#555555"/>`,
    `<text x="${left}" y="${y + 20}" font-size="13" font-weight="bold">${escapeXml(node.node)}</text>`,
    `<text x="${left}" y="${y + 40}" font-size="11">${escapeXml(
      `cpu ${node.cpu.planned} / ${node.cpu.capacity} (${percent(node.cpu.planned, node.cpu.capacity)})`,
    )}</text>`,
    ...bar(left, y + 45, node.cpu.capacity, cpu, colour, (n) => `${n} cpu`),
    `<text x="${left}" y="${y + 80}" font-size="11">${escapeXml(
      `memory ${formatMiB(node.memoryMiB.planned)} / ${formatMiB(node.memoryMiB.capacity)} (${percent(node.memoryMiB.planned, node.memoryMiB.capacity)})`,
    )}</text>`,
    ...bar(left, y + 85, node.memoryMiB.capacity, memory, colour, formatMiB),
    `</g>`,
  ];
}

export interface SvgOptions {
  /** Nodes drawn as lost (struck through, crossed out): the what-if's. */
  lost?: readonly { instance: string; node: string }[];
  /** Replaces the picture's title. */
  title?: string;
}

/** An SVG document (UTF-8, no external references) of instances × nodes with usage per tenant. */
export function renderSvg(plan: PlacementPlan, options: SvgOptions = {}): string {
  const lost = new Set((options.lost ?? []).map((n) => `${n.instance}\u0000${n.node}`));
  const colours = new Map(plan.tenants.map((t, i) => [t.name, PALETTE[i % PALETTE.length]]));
  const colour = (tenant: string) => colours.get(tenant) ?? '#777777';
  const instances = [...new Set(plan.nodes.map((n) => n.instance))];
  const widest = Math.max(1, ...instances.map((i) => plan.nodes.filter((n) => n.instance === i).length));
  const width = Math.max(640, MARGIN * 2 + widest * (CARD_WIDTH + GAP) - GAP);

  const body: string[] = [];
  let y = MARGIN + 18;
  body.push(
    `<text x="${MARGIN}" y="${y}" font-size="18" font-weight="bold">${escapeXml(
      options.title ??
        `Placement: ${plan.tenants.length} tenant${plan.tenants.length === 1 ? '' : 's'} on ${instances.length} instance${instances.length === 1 ? '' : 's'}`,
    )}</text>`,
  );
  y += 14;
  // Legend, wrapped to the picture's width.
  let x = MARGIN;
  y += 10;
  for (const tenant of plan.tenants) {
    const label = `${tenant.name} (${tenant.mode})`;
    const entry = 18 + label.length * CHAR_WIDTH + 16;
    if (x + entry > width - MARGIN && x > MARGIN) {
      x = MARGIN;
      y += 20;
    }
    body.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${colour(tenant.name)}"/>`);
    body.push(`<text x="${x + 18}" y="${y + 11}" font-size="12">${escapeXml(label)}</text>`);
    x += entry;
  }
  if (plan.tenants.length === 0) body.push(`<text x="${x}" y="${y + 11}" font-size="12">no tenants</text>`);
  y += 28;

  instances.forEach((instance, position) => {
    const nodes = plan.nodes.filter((n) => n.instance === instance);
    body.push(
      `<text x="${MARGIN}" y="${y + 16}" font-size="15" font-weight="bold">${escapeXml(
        `${instance}${position === 0 ? ' (default)' : ''}: ${nodes.length} node${nodes.length === 1 ? '' : 's'}`,
      )}</text>`,
    );
    y += ROW_HEADER;
    nodes.forEach((node, i) => body.push(...card(node, MARGIN + i * (CARD_WIDTH + GAP), y, colour, lost.has(`${node.instance}\u0000${node.node}`))));
    y += CARD_HEIGHT + GAP;
  });

  const height = y + MARGIN - GAP;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#fafafa"/>`,
    ...body,
    `</svg>`,
    '',
  ].join('\n');
}
