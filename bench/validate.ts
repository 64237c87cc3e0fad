/**
 * `npm run --silent bench:validate -- [--sizes 1000,10000] [--runs 1]`
 *
 * `validate` time on every path (issue 42, item 5): labs of N tenants (3 pools each, 3 instances ×
 * 3 nodes, bench/lab-generator.ts) where no tenant pins its VIP and the load-balancer pool is a /16
 * (every VIP ranked in blocks, some tenants collide and are resolved: modules/tenants/vip.ts), the
 * same lab with every VIP pinned, and the refusing paths: every tenant pinned to one VIP (N − 1
 * problems, the description rules), every pinned VIP but ten outside a shrunk pool (N − 10
 * problems, at rendering), `--against` the allocated lab with one tenant edited (the replacement
 * guard and address edits), and `--against` it with the pool cut to its lower half (about N/2
 * remembered VIPs left out: the memory's refusals).
 * Each run is a whole `node dist/scripts/validate.js` process, as a user runs it: wall-clock
 * seconds, CPU seconds (user + system of the process), exit code and how many problems it
 * reported. Then, in this process, one tenant ranked over the /16 with the weights as computed
 * before (node:crypto per address) and now (modules/tenants/vip-weight.ts), best of 3: the
 * speed-up without the load of the machine in it. The 1-minute load average is printed beside each
 * figure (the machine is shared). Prints figures, not verdicts; docs/development.md records them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { numberToIp } from '../modules/config/ip';
import { PoolAddresses, TenantWeights } from '../modules/tenants/vip-weight';
import { childrenCpuSeconds } from './cpu-seconds';
import { benchLab } from './lab-generator';
import { parseLab } from '../modules/config/load';
import { allocateVips } from '../modules/tenants/vip';

function parseArgs(argv: string[]) {
  const args = { sizes: [1000, 10000], runs: 1 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else {
      process.stderr.write(`unknown argument ${argv[i]}\nusage: npm run --silent bench:validate -- [--sizes 1000,10000] [--runs 1]\n`);
      process.exit(1);
    }
  }
  return args;
}

const root = join(__dirname, '..', '..');
const args = parseArgs(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), 'pvekaas-bench-validate-'));
const load = () => loadavg()[0].toFixed(1);

try {
  process.stdout.write('| tenants | path | wall s | CPU s | exit | problems | load |\n|---:|---|---:|---:|---:|---:|---:|\n');
  for (const size of args.sizes) {
    const allocated = benchLab(size, { allocatedVips: true });
    // The generator's pool for pinned VIPs holds about 4000 (10.4.0.1-10.4.15.254): widened to hold 10 000 (its VIPs go up to 10.4.39.x).
    const pinned = benchLab(size, {}).replace('10.4.0.1-10.4.15.254', '10.4.0.1-10.4.63.254');
    const write = (name: string, text: string) => {
      const file = join(work, `lab-${size}-${name}.yaml`);
      writeFileSync(file, text);
      return file;
    };
    const base = write('allocated', allocated);
    const paths: { path: string; args: string[] }[] = [
      { path: 'allocated, /16 pool', args: ['--config', base] },
      { path: 'pinned', args: ['--config', write('pinned', pinned)] },
      { path: 'refused: one VIP pinned by all', args: ['--config', write('one-vip', pinned.replace(/vip: 10\.4\.\d+\.\d+/g, 'vip: 10.4.0.1'))] },
      { path: 'refused: VIPs outside the pool', args: ['--config', write('outside', pinned.replace('10.4.0.1-10.4.63.254', '10.4.0.1-10.4.0.10'))] },
      {
        path: '--against, one tenant edited',
        args: ['--config', write('edited', benchLab(size, { allocatedVips: true, editFirstTenant: true })), '--against', base],
      },
      {
        path: 'refused: --against, pool halved',
        args: ['--config', write('halved', allocated.replace('10.4.0.0-10.4.255.255', '10.4.0.0-10.4.127.255')), '--against', base],
      },
    ];
    for (const { path, args: argv } of paths) {
      for (let run = 0; run < args.runs; run++) {
        const cpu = childrenCpuSeconds();
        const start = performance.now();
        const r = spawnSync(process.execPath, [join(root, 'dist/scripts/validate.js'), ...argv], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
        const wall = (performance.now() - start) / 1000;
        const problems = /(\d+) problems? in the lab description/.exec(r.stderr)?.[1] ?? '0';
        process.stdout.write(
          `| ${size} | ${path} | ${wall.toFixed(1)} | ${(childrenCpuSeconds() - cpu).toFixed(1)} | ${r.status} | ${problems} | ${load()} |\n`,
        );
      }
    }
  }

  // One tenant over the /16: the weights as before (node:crypto per address) and now.
  const range = { first: (10 << 24) | (4 << 16), last: ((10 << 24) | (4 << 16)) + 65535 };
  const before = () => {
    let best = -1n;
    for (let a = range.first; a <= range.last; a++) {
      const w = createHash('sha256')
        .update(`t-0042\0${numberToIp(a)}`)
        .digest()
        .readBigUInt64BE(0);
      if (w > best) best = w;
    }
  };
  const pool = new PoolAddresses([range]);
  const now = () => {
    const w = new TenantWeights('t-0042', pool);
    for (let i = 0; i < pool.size; i++) w.weigh(i);
  };
  // Now (issue 41): the pool ranked in blocks (256 block weights, then 256 addresses per tenant): 1000 tenants allocated at once, per tenant.
  const lab = parseLab(benchLab(1000, { allocatedVips: true }), 'bench');
  const blocks = () => allocateVips(lab);
  const bestOf = (f: () => void) => Math.min(...[0, 1, 2].map(() => ((t) => (f(), performance.now() - t))(performance.now())));
  const [b, n, k] = [bestOf(before), bestOf(now), bestOf(blocks)];
  process.stdout.write(
    `\none tenant ranked over 65536 addresses: ${b.toFixed(0)} ms with node:crypto per address, ${n.toFixed(0)} ms with the fast weights; ` +
      `ranked in blocks (1000 tenants allocated at once, collisions resolved, pool text included): ${(k / 1000).toFixed(2)} ms per tenant (best of 3, load ${load()})\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
