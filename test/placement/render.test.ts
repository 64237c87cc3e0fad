/** The three renderings of a plan: JSON (the contract), markdown (the review report) and SVG (the picture). */
import { join } from 'node:path';
import { loadLabFile } from '../../modules/config/load';
import {
  diffPlacement,
  machinesAtLeast,
  machinesAtMost,
  planPlacement,
  renderJson,
  renderMarkdown,
  renderSvg,
  type PlacementPlan,
} from '../../modules/placement';
import { labOf, proposalInstances } from './support';

const example = planPlacement(loadLabFile(join(__dirname, '../../examples/lab.yaml')));

/**
 * A strict enough XML check for our SVG: every character belongs to a declaration, a tag with
 * quoted attributes, or text without raw `<`/bare `&`; tags balance; one root element.
 */
function parseXml(text: string): { roots: string[]; elements: Map<string, number>; texts: string[] } {
  const token = /<\?xml[^>]*\?>|<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const stack: string[] = [];
  const roots: string[] = [];
  const elements = new Map<string, number>();
  const texts: string[] = [];
  const entity = /&(?!(amp|lt|gt|quot|apos|#\d+);)/;
  let at = 0;
  while (at < text.length) {
    token.lastIndex = at;
    const m = token.exec(text);
    if (!m) throw new Error(`not well-formed at offset ${at}: ${text.slice(at, at + 40)}`);
    at = token.lastIndex;
    const [whole, closing, name, attributes, selfClosing, body] = m;
    if (body !== undefined) {
      if (entity.test(body)) throw new Error(`bare & in text: ${body}`);
      if (body.trim() !== '') {
        if (stack.length === 0) throw new Error(`text outside the root: ${body}`);
        texts.push(body);
      }
      continue;
    }
    if (whole.startsWith('<?xml')) continue;
    if (attributes && entity.test(attributes)) throw new Error(`bare & in attributes: ${attributes}`);
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
      continue;
    }
    if (stack.length === 0) roots.push(name);
    elements.set(name, (elements.get(name) ?? 0) + 1);
    if (!selfClosing) stack.push(name);
  }
  if (stack.length > 0) throw new Error(`unclosed: ${stack.join(', ')}`);
  return { roots, elements, texts };
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

describe('renderJson', () => {
  const json = renderJson(example);
  const parsed = JSON.parse(json);

  it('is 2-space indented with a trailing newline, and the same bytes on every call', () => {
    expect(json.endsWith('}\n')).toBe(true);
    expect(json.split('\n')[1]).toBe('  "tenants": [');
    expect(renderJson(example)).toBe(json);
  });

  it('has the contract shape: tenants with mode, version, ha (booleans and conditions) and pools of placements; nodes with capacity after the reserve; the ledger; warnings', () => {
    expect(Object.keys(parsed)).toEqual(['tenants', 'nodes', 'ledger', 'warnings']);
    expect(Object.keys(parsed.tenants[0])).toEqual(['name', 'mode', 'kubernetesVersion', 'ha', 'haConditions', 'instances', 'reason', 'pools']);
    expect(Object.keys(parsed.tenants[0].ha)).toEqual(['survivesNodeLoss', 'survivesInstanceLoss']);
    expect(parsed.tenants[0].haConditions.map((c: { type: string }) => c.type)).toEqual(['SurvivesNodeLoss', 'SurvivesInstanceLoss']);
    expect(Object.keys(parsed.ledger)).toEqual(['tenants', 'instances', 'nodes']);
    expect(parsed.tenants[0].pools[0]).toEqual({
      name: 'workers',
      replicas: 3,
      size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 },
      placements: [
        expect.objectContaining({ instance: 'pmox-txl', node: 'pmox-txl-1' }),
        expect.objectContaining({ instance: 'pmox-txl', node: 'pmox-txl-2' }),
      ],
    });
    expect(Object.keys(parsed.nodes[0])).toEqual(['instance', 'node', 'cpu', 'memoryMiB', 'tenants']);
    expect(parsed.nodes[0].cpu.capacity).toBe(30);
    expect(parsed.nodes[0].memoryMiB.capacity).toBe(122880);
  });

  it('gives autoscaled placements min and max, with replicas equal to min', () => {
    const workers = parsed.tenants.find((t: { name: string }) => t.name === 'tenant-b').pools.find((p: { name: string }) => p.name === 'workers');
    expect(workers.autoscaling).toEqual({ min: 1, max: 6 });
    for (const p of workers.placements) {
      expect(Object.keys(p)).toEqual(['instance', 'node', 'replicas', 'min', 'max']);
      expect(p.replicas).toBe(p.min);
    }
  });

  it('depends on the plan content only, not on the key order of its objects', () => {
    const reordered: PlacementPlan = JSON.parse(JSON.stringify(example), (_, value) =>
      value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value,
    );
    expect(renderJson(reordered)).toBe(json);
  });

  it('adds the diff under "diff" when given one', () => {
    const withDiff = JSON.parse(renderJson(example, diffPlacement(example, example)));
    expect(withDiff.diff).toEqual({ tenants: [], moved: [], added: [], removed: [], bounds: [], resized: [] });
  });
});

describe('renderMarkdown', () => {
  const markdown = renderMarkdown(example);

  it('has, per tenant, its instances and nodes, why, and the HA verdicts with their reasons', () => {
    expect(markdown).toContain('| tenant-c | MultiInstance | pmox-fra, pmox-txl | 5 | yes | yes |');
    expect(markdown).toContain('### tenant-b (SingleInstance)');
    expect(markdown).toContain('**Why:** SingleInstance: the rendezvous ranking of the eligible instances for tenant-b is pmox-txl > pmox-fra;');
    expect(markdown).toContain('Survives the loss of an instance: no: pool gpu has its only machine on pmox-txl.');
    expect(markdown).toContain('| workers | 4 cpu, 16 GiB, 60 GiB disk | pmox-txl | pmox-txl-1 | 1..3 |');
    expect(markdown).toContain('Pool workers: 5 machines, 3 on pmox-fra (3 nodes) and 2 on pmox-txl (1 node).');
  });

  it('has per-node utilisation with the tenants on each node', () => {
    expect(markdown).toContain('| pmox-txl | pmox-txl-1 | 28 / 30 | 93% | 96 GiB / 120 GiB | 80% | tenant-a 8 cpu / 16 GiB, tenant-b 20 cpu / 80 GiB |');
    expect(markdown).toContain('| pmox-fra | pmox-fra-3 | 4 / 46 | 9% | 8 GiB / 184 GiB | 4% | tenant-c 4 cpu / 8 GiB |');
  });

  it('lists the warnings, or says there are none', () => {
    expect(markdown).toContain('## Warnings\n\n- tenant tenant-c, pool workers: spread unevenly over the nodes of pmox-txl');
    const calm = planPlacement(labOf({ instances: proposalInstances, tenants: [] }));
    expect(renderMarkdown(calm)).toContain('## Warnings\n\nNone.');
    expect(renderMarkdown(calm)).toContain('No tenants.');
  });

  it('shows the changes when given a diff', () => {
    const after = planPlacement(
      labOf({
        instances: proposalInstances,
        tenants: [{ name: 'test', mode: 'MultiInstance', pools: [{ name: 'workers', replicas: 5, size: { cpu: 4, memoryMiB: 8192 } }] }],
      }),
    );
    const before = planPlacement(
      labOf({
        instances: proposalInstances,
        tenants: [{ name: 'test', mode: 'Default', pools: [{ name: 'workers', replicas: 5, size: { cpu: 4, memoryMiB: 8192 } }] }],
      }),
    );
    const report = renderMarkdown(after, diffPlacement(before, after));
    expect(report).toContain('## Changes against the other description');
    expect(report).toContain('- test: pmox-txl → pmox-fra, pmox-txl');
    // Default put 3 + 2 on pmox-txl; MultiInstance keeps 1 + 1 there and sends 3 to pmox-fra.
    expect(report).toContain('### Machines that move');
    expect(report.match(/^\| test \| workers \| pmox-txl\/pmox-txl-\d \| pmox-fra\/pmox-fra-\d \| 1 \|$/gm)).toHaveLength(3);
    expect(renderMarkdown(after, diffPlacement(after, after))).toContain('No machine moves, appears or disappears.');
  });

  it('ends with exactly one newline', () => {
    expect(markdown.endsWith('\n')).toBe(true);
    expect(markdown.endsWith('\n\n')).toBe(false);
  });
});

describe('renderSvg', () => {
  const svg = renderSvg(example);

  it('is well-formed XML with one svg root', () => {
    const xml = parseXml(svg);
    expect(xml.roots).toEqual(['svg']);
    expect(svg).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it("shows every instance, node and tenant, and each node's cpu and memory", () => {
    const texts = parseXml(svg).texts.map(unescape);
    expect(texts).toEqual(expect.arrayContaining(['pmox-txl (default): 2 nodes', 'pmox-fra: 3 nodes']));
    for (const node of example.nodes) expect(texts).toContain(node.node);
    for (const tenant of example.tenants) expect(texts.some((t) => t.startsWith(`${tenant.name} (${tenant.mode}): `))).toBe(true);
    expect(texts).toContain('cpu 28 / 30 (93%)');
    expect(texts).toContain('memory 96 GiB / 120 GiB (80%)');
    // One coloured segment per tenant and node on each bar, with a tooltip.
    expect(texts).toContain('tenant-b: 20 cpu');
    expect(texts).toContain('tenant-b: 80 GiB');
  });

  it("gives each tenant's machines (min..max for autoscaled pools) in the legend, and each node's per tenant (issue 43)", () => {
    const texts = parseXml(svg).texts.map(unescape);
    expect(texts).toEqual(
      expect.arrayContaining(['tenant-a (Default): 3 machines', 'tenant-b (SingleInstance): 2..7 machines', 'tenant-c (MultiInstance): 5 machines']),
    );
    // Every node's line, from the plan: the sum of its placements per tenant.
    for (const node of example.nodes) {
      const words = example.tenants.flatMap((t) => {
        const here = t.pools.flatMap((p) => p.placements).filter((p) => p.instance === node.instance && p.node === node.node);
        const min = here.reduce((n, p) => n + machinesAtLeast(p.scale), 0);
        const max = here.reduce((n, p) => n + machinesAtMost(p.scale), 0);
        return max === 0 ? [] : [`${t.name} ${min === max ? min : `${min}..${max}`}`];
      });
      expect(words.length).toBeGreaterThan(0);
      const from = texts.indexOf(node.node);
      const next = texts.findIndex((t, i) => i > from && example.nodes.some((n) => n.node === t));
      const lines = texts.slice(from, next < 0 ? undefined : next).filter((t) => /^(machines: |tenant-[a-z0-9-]+ \d)/.test(t));
      expect(lines.join(' · ').replace(/^machines: /, '')).toBe(words.join(' · '));
    }
    expect(texts).toContain('machines: tenant-a 2 · tenant-b 2..4');
    // Nothing is marked as not fitting in the plan itself.
    expect(svg).not.toContain('DOES NOT FIT');
    expect(svg).not.toContain('class="unfit"');
  });

  it('escapes names and stays well-formed with any node name', () => {
    const plan = planPlacement(
      labOf({
        instances: [{ name: 'pve-a', nodes: [{ name: 'node <1> & "two"', cpu: 16, memoryMiB: 65536 }] }],
        tenants: [{ name: 'alpha', mode: 'Default', pools: [{ name: 'workers', replicas: 1, size: { cpu: 2, memoryMiB: 2048 } }] }],
      }),
    );
    const picture = renderSvg(plan);
    expect(parseXml(picture).texts.map(unescape)).toContain('node <1> & "two"');
    expect(renderSvg(plan)).toBe(picture);
  });

  it('draws a lab without tenants', () => {
    const empty = renderSvg(planPlacement(labOf({ instances: proposalInstances, tenants: [] })));
    expect(parseXml(empty).texts).toContain('no tenants');
  });
});
