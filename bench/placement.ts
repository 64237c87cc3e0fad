/**
 * `npm run bench:placement`: the time to place 10k and 100k machines over 10 instances × 10 nodes,
 * best of several runs, and the growth ratio between them (10 means linear). Not a test: it prints.
 *
 * The lab grows by tenants (20 machines each: a fixed pool of 10 and an autoscaled pool of up to
 * 10), a mix of the three modes with some pinned pools, on nodes large enough to hold it all, so
 * the time measured is the planning itself and not a failure path.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { labSchema, type Lab, type LabInput } from '../modules/config/schema';
import { machinesAtMost, planPlacement } from '../modules/placement';

const INSTANCES = 10;
const NODES = 10;
const MACHINES_PER_TENANT = 20;
const RUNS = 7;

function benchLab(machines: number): Lab {
  const tenantCount = Math.ceil(machines / MACHINES_PER_TENANT);
  // Every node can hold a tenth of all machines: the default instance alone could take them all.
  const nodeCpu = Math.ceil((machines * 4) / NODES) + 2;
  const nodeMemory = Math.ceil((machines * 8192) / NODES) + 8192;
  const instances = Array.from({ length: INSTANCES }, (_, i) => ({
    name: `pve-${i}`,
    endpoint: `https://pve-${i}.bench.example:8006/`,
    insecure: false,
    nodes: Array.from({ length: NODES }, (_, n) => ({ name: `pve-${i}-node-${n}`, cpu: nodeCpu, memoryMiB: nodeMemory })),
    template: { sourceNode: `pve-${i}-node-0`, templateID: 1000 },
  }));
  const modes = ['Default', 'SingleInstance', 'MultiInstance', 'MultiInstance', 'SingleInstance'] as const;
  const tenants = Array.from({ length: tenantCount }, (_, t) => ({
    name: `tenant-${String(t).padStart(6, '0')}`,
    kubernetesVersion: 'v1.35.4',
    placement: { mode: modes[t % modes.length] },
    pools: [
      { name: 'workers', replicas: 10, size: { cpu: 2, memoryMiB: 4096, diskGiB: 20 }, ...(t % 7 === 0 ? { instance: `pve-${t % INSTANCES}` } : {}) },
      { name: 'batch', autoscaling: { min: 2, max: 10 }, size: { cpu: 6, memoryMiB: 12288, diskGiB: 40 } },
    ],
  }));
  const input: LabInput = {
    proxmox: { reserve: { cpu: 2, memoryMiB: 8192 }, instances },
    management: { loadBalancer: { addresses: ['10.0.0.10-10.0.0.250'] } },
    tenants,
  };
  // The schema fills in the defaults, as loading a file would; it is not part of the time measured.
  return labSchema.parse(input);
}

// Collecting the previous run's garbage before each run keeps it out of the next run's time.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function bestOf(lab: Lab): { ms: number; machines: number } {
  let best = Infinity;
  let machines = 0;
  for (let run = 0; run < RUNS; run++) {
    collectGarbage();
    const start = performance.now();
    const plan = planPlacement(lab);
    best = Math.min(best, performance.now() - start);
    machines = plan.tenants.reduce((n, t) => n + t.pools.reduce((m, p) => m + machinesAtMost(p.scale), 0), 0);
  }
  return { ms: best, machines };
}

const smallLab = benchLab(10_000);
const largeLab = benchLab(100_000);
// Warm up on both labs so that neither figure includes the JIT compiling the planner.
for (let i = 0; i < 3; i++) planPlacement(smallLab);
planPlacement(largeLab);
const small = bestOf(smallLab);
const large = bestOf(largeLab);
const line = (r: { ms: number; machines: number }) =>
  `${String(r.machines).padStart(7)} machines over ${INSTANCES} instances × ${NODES} nodes: ${r.ms.toFixed(1).padStart(7)} ms ` +
  `(best of ${RUNS}; ${((r.ms * 1000) / r.machines).toFixed(2)} µs per machine)`;
process.stdout.write(`${line(small)}\n${line(large)}\n`);
process.stdout.write(`growth ratio 100k / 10k: ${(large.ms / small.ms).toFixed(2)} (10 is linear)\n`);
process.stdout.write(`100k target under 1000 ms: ${large.ms < 1000 ? 'met' : 'NOT met'}\n`);
