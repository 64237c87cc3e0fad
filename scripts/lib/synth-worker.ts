/**
 * Parallel synthesis, the worker side (scripts/lib/synthesize.ts starts it when many stacks must be
 * synthesized and the machine has more than one core):
 *
 *   node synth-worker.js <job.json>        share 0 in this process, shares 1.. in child processes
 *   node synth-worker.js <job.json> <k>    share k only
 *
 * Each share loads, places and renders the whole lab (as the parent did; the parent has already
 * refused a lab with problems), then builds and synthesizes only its stacks into `<scratch>/.part-<k>`
 * exactly as the synth cache's partial synth does. The parent merges the parts (synthesize.ts);
 * test/synth/parallel.test.ts compares the result with a one-process synth, byte for byte.
 * Exit status 0 when every share succeeded; otherwise 1 with each failure on stderr.
 */
// First: the code cache and lazy archiver, before anything loads cdktf.
import './fast-start';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { synthesizeShare, type SynthJob } from './synthesize';

/**
 * A worker dies with its parent, however the parent ended (Ctrl-C, SIGTERM, SIGKILL): synthesis
 * is synchronous and never looks up, so a thread of this process watches the parent process id,
 * and when it changes (the parent is gone, this process was handed to init) ends the process with
 * SIGKILL. Without it, workers of a killed `synth --jobs` ran on, wrote into a scratch directory the
 * next synth was removing, and made it fail. The shares a worker started itself watch it in turn.
 */
function dieWithParent(then: () => void): void {
  // The parent's pid as the parent gave it: read here, process.ppid may already be init's.
  const parent = Number(process.env.PVEKAAS_SYNTH_PARENT ?? process.ppid);
  const watcher = new Worker(
    `const parent = ${JSON.stringify(parent)};
     const check = () => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL'); };
     check();
     setInterval(check, 100);
     require('node:worker_threads').parentPort.postMessage('watching');`,
    { eval: true },
  );
  // A thread starts only when this one's event loop turns: synthesis (synchronous) waits for it.
  watcher.once('message', () => {
    watcher.unref();
    then();
  });
  watcher.once('error', (e) => fail(e));
}

function fail(error: unknown): never {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const [jobFile, share] = process.argv.slice(2);
if (!jobFile) fail('usage: synth-worker <job.json> [<share>]');
const job = JSON.parse(readFileSync(jobFile, 'utf8')) as SynthJob;

dieWithParent(() => (share !== undefined ? runShare(Number(share)) : runAll()));

function runShare(k: number): void {
  try {
    synthesizeShare(job, k);
  } catch (error) {
    fail(error);
  }
}

function runAll(): void {
  // The other shares start first, then share 0 runs here while they work.
  const others = job.shares.slice(1).map(
    (_, i) =>
      new Promise<string | undefined>((done) => {
        const child = spawn(process.execPath, [__filename, jobFile, String(i + 1)], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, PVEKAAS_SYNTH_PARENT: String(process.pid) },
        });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', (e) => done(`share ${i + 1}: ${e.message}`));
        child.on('close', (code, signal) => done(code === 0 ? undefined : `share ${i + 1} (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
      }),
  );
  let own: string | undefined;
  try {
    synthesizeShare(job, 0);
  } catch (error) {
    own = `share 0: ${error instanceof Error ? error.message : String(error)}`;
  }
  void Promise.all(others).then((results) => {
    const failures = [own, ...results].filter((r): r is string => r !== undefined);
    if (failures.length > 0) fail(failures.join('\n'));
  });
}
