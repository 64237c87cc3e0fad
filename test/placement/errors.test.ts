/** A lab that does not fit: every tenant and pool that does not is named, with the instances tried and the shortage. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atLabFile, loadLabFile } from '../../modules/config/load';
import { formatPath, ProblemError, type Problem } from '../../modules/config/problems';
import { planPlacement } from '../../modules/placement';
import { labOf, proposalInstances, type LabSpec, type PoolSpec, type TenantSpec } from './support';

const workers = (replicas: number, cpu = 4, instance?: string): PoolSpec => ({ name: 'workers', replicas, size: { cpu, memoryMiB: 8192 }, instance });

/** A problem as one sentence: what is wrong, then the fix. */
const sentence = (p: Problem) => (p.fix ? `${p.message}; fix: ${p.fix}` : p.message);

function problemsOf(tenants: TenantSpec[], instances = proposalInstances): string[] {
  const spec: LabSpec = { reserve: { cpu: 2, memoryMiB: 8192 }, instances, tenants };
  try {
    planPlacement(labOf(spec));
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemError);
    const { problems, message } = e as ProblemError;
    expect(message.split('\n')[0]).toBe(`the lab does not fit its Proxmox instances: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
    for (const p of problems) {
      expect(p.path.slice(0, 2)).toEqual(['tenants', expect.any(Number)]);
      expect(message).toContain(`  ${formatPath(p.path)}: ${p.message.slice(0, 300)}`);
      expect(message).toContain(`\n      fix: ${p.fix}`);
    }
    return problems.map(sentence);
  }
  throw new Error('expected the lab not to fit');
}

describe('placement errors', () => {
  it('a Default tenant too big for the default instance: need, free, room and the cpu shortage', () => {
    // pmox-txl: 2 nodes × (32 - 2) cpu = 60 free; 16 × 4 = 64 needed; 7 per node fit, so 14.
    expect(problemsOf([{ name: 'big', mode: 'Default', pools: [workers(16)] }])).toEqual([
      'tenant big, pool workers (Default mode places every machine on the default instance): does not fit on pmox-txl: ' +
        '16 machines of 4 cpu and 8192 MiB need 64 cpu and 131072 MiB; pmox-txl has 60 cpu and 245760 MiB free after the reserve ' +
        'and earlier placements, room for 14: short of 4 cpu; ' +
        'fix: add nodes or capacity to pmox-txl, make the pool smaller, or choose mode SingleInstance or MultiInstance to use other instances',
    ]);
  });

  it('enough cpu in total but split over nodes: says so instead of inventing a shortage', () => {
    // 15 × 4 = 60 cpu = exactly the free cpu, yet each node holds only 7 (28 of its 30 cpu).
    const [problem] = problemsOf([{ name: 'big', mode: 'Default', pools: [workers(15)] }]);
    expect(problem).toContain('room for 14: enough cpu and memory in total, but split over the nodes so that none has room for another whole machine');
  });

  it('memory shortage is given in MiB', () => {
    const [problem] = problemsOf([{ name: 'fat', mode: 'Default', pools: [{ name: 'db', replicas: 3, size: { cpu: 1, memoryMiB: 100 * 1024 } }] }]);
    // 3 × 102400 = 307200 needed, 245760 free.
    expect(problem).toContain('short of 61440 MiB memory');
  });

  it('a SingleInstance tenant that fits nowhere names every instance tried, in ranking order, with the pool that failed on each', () => {
    // "test" ranks pmox-fra first. pmox-fra: 3 × floor(46 / 8) = 15 machines of 8 cpu; pmox-txl: 2 × 3 = 6.
    const [problem, ...rest] = problemsOf([{ name: 'test', mode: 'SingleInstance', pools: [workers(2, 8, undefined), { ...workers(20, 8), name: 'more' }] }]);
    expect(rest).toEqual([]);
    expect(problem).toMatch(/^tenant test \(SingleInstance\): no eligible instance holds all its 22 machines; tried pmox-fra > pmox-txl: /);
    expect(problem).toContain('on pmox-fra, pool more: 20 machines of 8 cpu and 8192 MiB need 160 cpu and 163840 MiB; pmox-fra has 138 cpu');
    // Pools go in name order, so "more" is tried first: room for 15, and 160 - 138 = 22 cpu short.
    expect(problem).toContain('room for 15: short of 22 cpu');
    // On pmox-txl it fails too: room for 6, and 160 - 60 = 100 cpu short.
    expect(problem).toContain('on pmox-txl, pool more: 20 machines of 8 cpu and 8192 MiB need 160 cpu and 163840 MiB; pmox-txl has 60 cpu');
    expect(problem).toContain('room for 6: short of 100 cpu; fix: add nodes or capacity to one of them');
  });

  it('a MultiInstance pool that does not fit names the instances it may use and the summed shortage', () => {
    const problems = problemsOf([{ name: 'wide', mode: 'MultiInstance', instances: ['pmox-txl', 'pmox-fra'], pools: [workers(60)] }]);
    // Free cpu: 2 × 30 + 3 × 46 = 198; memory 2 × 122880 + 3 × 188416 = 811008 MiB;
    // 60 × 4 = 240 cpu needed; room 2 × 7 + 3 × 11 = 47.
    expect(problems).toEqual([expect.stringMatching(/^tenant wide, pool workers \(MultiInstance\): does not fit on pmox-(txl|fra), pmox-(txl|fra): /)]);
    expect(problems[0]).toContain('198 cpu and 811008 MiB free');
    expect(problems[0]).toContain('room for 47: short of 42 cpu; fix: add nodes or capacity, make the pool smaller, or allow more instances');
  });

  it('a pinned pool that does not fit its instance says it is pinned', () => {
    const [problem] = problemsOf([{ name: 'pinned', mode: 'MultiInstance', pools: [workers(40, 4, 'pmox-fra')] }]);
    expect(problem).toMatch(/^tenant pinned, pool workers \(pinned to pmox-fra\): does not fit on pmox-fra: /);
  });

  it('reports every tenant and pool that does not fit in one run, tenants in name order', () => {
    const problems = problemsOf([
      { name: 'zeta', mode: 'Default', pools: [workers(100)] },
      { name: 'alpha', mode: 'Default', pools: [workers(1), { ...workers(200), name: 'huge' }] },
      { name: 'mid', mode: 'Default', pools: [workers(2)] },
    ]);
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'tenant alpha, pool huge (Default mode places every machine on the default instance)',
      'tenant zeta, pool workers (Default mode places every machine on the default instance)',
    ]);
  });

  it('an unknown instance in a hand-built lab is a problem, not a crash', () => {
    const lab = labOf({ instances: proposalInstances, tenants: [{ name: 'x', mode: 'SingleInstance', pools: [workers(1)] }] });
    lab.tenants[0].placement.instances = ['pmox-nowhere'];
    lab.tenants[0].pools[0].instance = 'pmox-gone';
    expect(() => planPlacement(lab)).toThrow(ProblemError);
    try {
      planPlacement(lab);
    } catch (e) {
      expect((e as ProblemError).problems.map((p) => [p.path.join('.'), p.message])).toEqual([
        ['tenants.0.pools.0', 'tenant x, pool workers: pinned to unknown instance pmox-gone'],
        ['tenants.0.placement.instances', 'tenant x: placement.instances names unknown instance pmox-nowhere'],
      ]);
    }
  });
});

describe('placement errors and warnings on odd labs', () => {
  it('a machine larger than every node says so', () => {
    const [problem] = problemsOf([{ name: 'huge', mode: 'Default', pools: [workers(1, 31)] }]);
    expect(problem).toContain(
      'does not fit on pmox-txl: one machine of 31 cpu and 8192 MiB is larger than any node of pmox-txl (the nodes offer at most 30 cpu and at most 122880 MiB after the reserve)',
    );
  });

  it('an instance a SingleInstance tenant tried and left leaves no warning about its nodes', () => {
    // "test" ranks pmox-fra first. There, pool a (10 × 2 cpu) is spread 3 + 7 because pmox-fra-1 holds only 3,
    // then pool b (30 × 8 cpu) finds room for only 3, so the tenant goes to pmox-txl, where both fit evenly.
    const instances = [
      { name: 'pmox-txl', nodes: [1, 2].map((n) => ({ name: `pmox-txl-${n}`, cpu: 256, memoryMiB: 1 << 20 })) },
      {
        name: 'pmox-fra',
        nodes: [
          { name: 'pmox-fra-1', cpu: 6, memoryMiB: 1 << 20 },
          { name: 'pmox-fra-2', cpu: 40, memoryMiB: 1 << 20 },
        ],
      },
    ];
    const lab = labOf({
      reserve: { cpu: 0, memoryMiB: 0 },
      instances,
      tenants: [
        {
          name: 'test',
          mode: 'SingleInstance',
          pools: [
            { ...workers(10, 2), name: 'a' },
            { ...workers(30, 8), name: 'b' },
          ],
        },
      ],
    });
    const plan = planPlacement(lab);
    expect(plan.tenants[0].instances).toEqual(['pmox-txl']);
    expect(plan.warnings).toEqual([
      expect.stringMatching(/^tenant test: placed on pmox-txl, not on its better-ranked pmox-fra, for lack of room .*: pmox-fra, pool b: /),
    ]);
    expect(plan.nodes.filter((n) => n.instance === 'pmox-fra').map((n) => n.cpu.planned)).toEqual([0, 0]);
  });

  it('warns that Default mode ignores placement.instances, and about nodes no bigger than the reserve', () => {
    const plan = planPlacement(
      labOf({
        reserve: { cpu: 2, memoryMiB: 8192 },
        instances: [...proposalInstances, { name: 'pmox-tiny', nodes: [{ name: 'pmox-tiny-1', cpu: 2, memoryMiB: 65536 }] }],
        tenants: [{ name: 'shop', mode: 'Default', instances: ['pmox-fra'], pools: [workers(2)] }],
      }),
    );
    expect(plan.tenants[0].instances).toEqual(['pmox-txl']);
    expect(plan.warnings).toEqual([
      'node pmox-tiny-1 of pmox-tiny has 2 cpu and 65536 MiB, not more than the reserve (2 cpu, 8192 MiB): no machine can be planned on it',
      'tenant shop: placement.instances is ignored in Default mode, every machine of an unpinned pool goes to the default instance pmox-txl; use mode SingleInstance or MultiInstance to choose among instances',
    ]);
  });
});

describe('placement problems at the command line boundary', () => {
  it('come out at the file and line of the pool that does not fit, with the fix apart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvekaas-placement-'));
    try {
      const file = join(dir, 'lab.yaml');
      const text = readFileSync('examples/lab.yaml', 'utf8');
      const lines = text.split('\n');
      // tenant-a's first pool, `workers`, at line 47 of the example: 500 machines fit nowhere.
      expect(lines[46].trim()).toBe('- name: workers');
      expect(lines[47].trim()).toBe('replicas: 3');
      lines[47] = lines[47].replace('replicas: 3', 'replicas: 500');
      writeFileSync(file, lines.join('\n'));
      const lab = loadLabFile(file);
      let error: unknown;
      try {
        atLabFile(file, () => planPlacement(lab));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ProblemError);
      const { message, problems } = error as ProblemError;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ path: ['tenants', 0, 'pools', 0], line: 47 });
      const shown = message.split('\n');
      expect(shown[0]).toBe(`${file}: 1 problem in the lab description`);
      expect(shown[1]).toMatch(
        new RegExp(`^  ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:47:\\d+  tenants\\[0\\]\\.pools\\[0\\]: tenant tenant-a, pool workers \\(Default mode`),
      );
      expect(shown[1]).not.toContain('fix:');
      expect(shown[2]).toMatch(/^ {6}fix: add nodes or capacity to pmox-txl, make the pool smaller, or choose mode SingleInstance or MultiInstance/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
