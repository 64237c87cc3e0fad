/**
 * The plan as a picture: one row per instance, one card per node, and on each card a cpu bar and
 * a memory bar split by tenant, so a full or lopsided node shows at a glance, and the machines each
 * tenant has there (min..max for autoscaled pools). The legend gives each tenant's machines in all;
 * a tenant or pool that no longer fits (the what-if's) is drawn as such: a red banner naming it,
 * and its legend entry marked in red (DOES NOT FIT).
 */
import { machinesAtLeast, machinesAtMost } from '../config/scale';
import { formatMiB } from './render-markdown';
import type { NodePlacement, NodeUsage, PlacementPlan } from './types';

/** Tableau 10: distinguishable, and readable with the most common colour-vision deficiencies. */
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
/** Palette entries too light for white labels. */
const LIGHT = new Set(['#76b7b2', '#edc948', '#ff9da7', '#bab0ac']);

const MARGIN = 24;
const CARD_WIDTH = 248;
/** The card without its machine lines; each line of machine counts adds MACHINE_LINE. */
const CARD_BASE_HEIGHT = 118;
const MACHINE_LINE = 14;
/** Characters of 10px text that fit one line of a card. */
const CARD_CHARS = 38;
const ALERT = '#c0392b';
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

/** `3`, or `1..6` for autoscaled machines. */
const range = (min: number, max: number) => (min === max ? String(min) : `${min}..${max}`);

/** Machines of a set of placements: at least (fixed + autoscaled min) and at most (fixed + autoscaled max). */
function machineRange(placements: readonly NodePlacement[]): { min: number; max: number } {
  return placements.reduce((r, p) => ({ min: r.min + machinesAtLeast(p.scale), max: r.max + machinesAtMost(p.scale) }), { min: 0, max: 0 });
}

/** Per node (`instance\0node`), each tenant's machines there, in plan order. */
function machinesPerNode(plan: PlacementPlan): Map<string, { tenant: string; min: number; max: number }[]> {
  const out = new Map<string, { tenant: string; min: number; max: number }[]>();
  for (const tenant of plan.tenants) {
    const here = new Map<string, NodePlacement[]>();
    for (const pool of tenant.pools)
      for (const p of pool.placements) here.set(`${p.instance}\u0000${p.node}`, [...(here.get(`${p.instance}\u0000${p.node}`) ?? []), p]);
    for (const [node, placements] of here) {
      const { min, max } = machineRange(placements);
      if (max > 0) out.set(node, [...(out.get(node) ?? []), { tenant: tenant.name, min, max }]);
    }
  }
  return out;
}

/** Words wrapped to lines of at most `chars` characters. */
function wrap(words: readonly string[], chars: number): string[] {
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 3 + word.length <= chars) lines[last] += ` · ${word}`;
    else lines.push(word);
  }
  return lines;
}

function card(node: NodeUsage, x: number, y: number, colour: (tenant: string) => string, height: number, machines: readonly string[], lost = false): string[] {
  const CARD_HEIGHT = height;
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
      `<rect x="${left - 4}" y="${y + 46}" width="${BAR_WIDTH + 8}" height="22" fill="#f4f4f4"/>`,
      `<text x="${left}" y="${y + 61}" font-size="12" font-weight="bold" fill="${ALERT}">lost: nothing can run here</text>`,
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
    ...machines.map((line, i) => `<text x="${left}" y="${y + 114 + i * MACHINE_LINE}" font-size="10" fill="#333333">${escapeXml(line)}</text>`),
    `</g>`,
  ];
}

/** A tenant (or some of its pools) that no longer fits: drawn as such. */
export interface UnfitTenant {
  readonly tenant: string;
  /** What no longer fits, in a few words: `no machine left anywhere`, `pool gpu does not fit`. */
  readonly what: string;
}

export interface SvgOptions {
  /** Nodes drawn as lost (struck through, crossed out): the what-if's. */
  lost?: readonly { instance: string; node: string }[];
  /** Replaces the picture's title. */
  title?: string;
  /** Tenants that no longer fit (the what-if's): a banner names each, and its legend entry is marked in red. */
  unfit?: readonly UnfitTenant[];
}

/** An SVG document (UTF-8, no external references) of instances × nodes with usage per tenant. */
export function renderSvg(plan: PlacementPlan, options: SvgOptions = {}): string {
  const lost = new Set((options.lost ?? []).map((n) => `${n.instance}\u0000${n.node}`));
  const colours = new Map(plan.tenants.map((t, i) => [t.name, PALETTE[i % PALETTE.length]]));
  const colour = (tenant: string) => colours.get(tenant) ?? '#777777';
  const instances = [...new Set(plan.nodes.map((n) => n.instance))];
  const widest = Math.max(1, ...instances.map((i) => plan.nodes.filter((n) => n.instance === i).length));
  const width = Math.max(640, MARGIN * 2 + widest * (CARD_WIDTH + GAP) - GAP);
  const perNode = machinesPerNode(plan);
  const machineLines = new Map(
    plan.nodes.map((n) => {
      const here = perNode.get(`${n.instance}\u0000${n.node}`) ?? [];
      const words = here.map((m) => `${m.tenant} ${range(m.min, m.max)}`);
      return [`${n.instance}\u0000${n.node}`, wrap(words.length > 0 ? [`machines: ${words[0]}`, ...words.slice(1)] : ['machines: none'], CARD_CHARS)];
    }),
  );
  const cardHeight = CARD_BASE_HEIGHT + MACHINE_LINE * Math.max(1, ...[...machineLines.values()].map((l) => l.length)) - 4;
  const unfit = new Map<string, string[]>();
  for (const u of options.unfit ?? []) unfit.set(u.tenant, [...(unfit.get(u.tenant) ?? []), u.what]);

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
    const { min, max } = machineRange(tenant.pools.flatMap((p) => p.placements));
    const doesNotFit = unfit.has(tenant.name);
    const label = `${tenant.name} (${tenant.mode}): ${range(min, max)} machine${max === 1 ? '' : 's'}${doesNotFit ? ' — DOES NOT FIT' : ''}`;
    const entry = 18 + label.length * CHAR_WIDTH + 16;
    if (x + entry > width - MARGIN && x > MARGIN) {
      x = MARGIN;
      y += 20;
    }
    if (doesNotFit) {
      body.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="#ffffff" stroke="${ALERT}" stroke-width="2" stroke-dasharray="3 2"/>`);
      body.push(`<text x="${x + 18}" y="${y + 11}" font-size="12" font-weight="bold" fill="${ALERT}">${escapeXml(label)}</text>`);
    } else {
      body.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${colour(tenant.name)}"/>`);
      body.push(`<text x="${x + 18}" y="${y + 11}" font-size="12">${escapeXml(label)}</text>`);
    }
    x += entry;
  }
  if (plan.tenants.length === 0) body.push(`<text x="${x}" y="${y + 11}" font-size="12">no tenants</text>`);
  y += 28;
  if (unfit.size > 0) {
    // The banner: what no longer fits, one line per tenant, above everything that still does.
    const lines = [...unfit].map(([tenant, what]) => `${tenant}: ${what.join('; ')}`);
    const height = 26 + lines.length * 18;
    body.push(
      `<g class="unfit">`,
      `<rect x="${MARGIN}" y="${y}" width="${width - 2 * MARGIN}" height="${height}" rx="4" fill="#fdecea" stroke="${ALERT}" stroke-width="1.5"/>`,
      `<text x="${MARGIN + 10}" y="${y + 18}" font-size="13" font-weight="bold" fill="${ALERT}">NO LONGER FITS — these machines are planned nowhere:</text>`,
      ...lines.map((l, i) => `<text x="${MARGIN + 10}" y="${y + 36 + i * 18}" font-size="12" fill="#222222">${escapeXml(l)}</text>`),
      `</g>`,
    );
    y += height + 14;
  }

  instances.forEach((instance, position) => {
    const nodes = plan.nodes.filter((n) => n.instance === instance);
    body.push(
      `<text x="${MARGIN}" y="${y + 16}" font-size="15" font-weight="bold">${escapeXml(
        `${instance}${position === 0 ? ' (default)' : ''}: ${nodes.length} node${nodes.length === 1 ? '' : 's'}`,
      )}</text>`,
    );
    y += ROW_HEADER;
    nodes.forEach((node, i) => {
      const at = `${node.instance}\u0000${node.node}`;
      body.push(...card(node, MARGIN + i * (CARD_WIDTH + GAP), y, colour, cardHeight, machineLines.get(at) ?? [], lost.has(at)));
    });
    y += cardHeight + GAP;
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
