/**
 * Docs that hold: every fenced `$ pvekaas …` / `$ npm run …` block of README.md and docs/*.md is
 * run as pasted, in a scratch directory that holds the project (each top-level entry linked), with
 * `pvekaas` on PATH (bin/pvekaas), and must exit as the doc says (`exit N` in the command's
 * comment, 0 without) and print what the doc quotes (test/docs/doc-commands.ts: `…` for elided
 * text, `excerpt` for lines shown in order with others between). Every `$` line of such a block
 * runs, in order, in the same directory (a `sed … > lab-x.yaml` before the command that reads it).
 *
 * A command that cannot run here is listed in NOT_RUN with the reason (a block none of whose
 * pvekaas commands runs is left out whole): keep it short, and add a line when a doc gains a command
 * that needs a real Proxmox or the toolchain.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { allDocBlocks, outputMismatch, PVEKAAS_COMMAND } from './doc-commands';

const ROOT = resolve(__dirname, '../..');

/** The commands not run: the doc file, a text of the command, and why. */
export const NOT_RUN: readonly { file: string; command: string; reason: string }[] = [
  {
    file: 'docs/storage.md',
    command: 'pvekaas release-volumes',
    reason: "reads a management cluster and the tenant's API server: test/kube/release-volumes.test.ts runs this code against real API servers",
  },
  {
    file: 'docs/delivery.md',
    command: 'pvekaas deploy',
    reason: 'deploys to the Proxmox VE simulator with the real OpenTofu and bpg/proxmox (the toolchain): test/delivery runs these deploys',
  },
  {
    file: 'README.md',
    command: 'pvekaas deploy',
    reason: 'deploys to the Proxmox VE simulator with the real OpenTofu and bpg/proxmox (the toolchain): test/delivery/deploy-confirm.test.ts runs this flow',
  },
  {
    file: 'docs/placement.md',
    command: 'pvekaas audit --config lab.yaml --tokens tokens.json',
    reason:
      'reads a running Proxmox VE (here: the example lab on the simulator, a VM moved, one left over); test/foresight/audit.test.ts audits moves and orphans on the simulator (its own lab)',
  },
  {
    file: 'docs/usage.md',
    command: 'pvekaas audit --config lab.yaml --tokens tokens.json',
    reason:
      'reads a running Proxmox VE (here: the example lab on the simulator, a VM moved, one left over); test/foresight/audit.test.ts audits moves and orphans on the simulator (its own lab)',
  },
  { file: 'docs/placement.md', command: 'pvekaas bench:placement', reason: 'a benchmark: its figures are the timings of one run on one machine' },
  {
    file: 'docs/twin.md',
    command: 'npm run --silent bench:upgrade',
    reason: 'a benchmark of three twin suites (about 20 minutes): its figures are one run on one machine',
  },
];

/** Top-level entries of the project not linked into the scratch directory: what the documented commands write. */
const WRITTEN = new Set(['.git', 'out', 'hcl', 'plans', 'review', 'state', 'cdktf.out', 'build']);

/**
 * The launcher's one-time build notice (bin/pvekaas: a source newer than the last build): printed
 * (and its "compiled in" line) before the command's own output by whichever documented command runs
 * first after an edit, so it is not part of what a doc quotes.
 */
const LAUNCHER_BUILD = /^pvekaas: [^\n]*; compiling \(tsc\) …\n(?:pvekaas: compiled in [0-9.]+ s\n)?/gm;

function notRun(file: string, command: string) {
  return NOT_RUN.find((n) => n.file === file && command.includes(n.command));
}

const blocks = allDocBlocks(ROOT);

function scratch(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'pvekaas-docs-'));
  for (const entry of readdirSync(ROOT)) if (!WRITTEN.has(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(ROOT, 'bin')}:${process.env.PATH}`, PVEKAAS_TODAY: '2026-12-06', NO_COLOR: '1' };
  delete env.PVEKAAS_DEBUG;
  return { dir, env };
}

describe('the documented commands', () => {
  test('there are documented commands, and every one not run is listed with its reason and still documented', () => {
    expect(blocks.length).toBeGreaterThan(10);
    for (const n of NOT_RUN) {
      expect(n.reason.length).toBeGreaterThan(20);
      expect(blocks.some((b) => b.commands.some((c) => notRun(b.file, c.command) === n))).toBe(true);
    }
  });

  // A block runs when one of its pvekaas commands does; its commands not run are left out of it.
  const run = blocks.filter((b) => b.commands.some((c) => PVEKAAS_COMMAND.test(c.command) && !notRun(b.file, c.command)));
  test.each(run.map((b) => [`${b.file}:${b.line} ${b.commands.find((c) => PVEKAAS_COMMAND.test(c.command))!.command}`, b] as const))(
    '%s',
    (_name, block) => {
      const { dir, env } = scratch();
      try {
        for (const c of block.commands.filter((c) => !notRun(block.file, c.command))) {
          const r = spawnSync('sh', ['-c', `exec 2>&1; ${c.command}`], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
          r.stdout = r.stdout.replace(LAUNCHER_BUILD, '');
          const where = `${c.file}:${c.line}: $ ${c.command}`;
          const status = r.status ?? -1;
          if (status !== c.exitCode) throw new Error(`${where}\nexit ${status}, the doc says ${c.exitCode}\n${r.stdout}`);
          if (c.output.length > 0) {
            const mismatch = outputMismatch(c.output, r.stdout, c.excerpt);
            if (mismatch) throw new Error(`${where}\n${mismatch}\n--- printed:\n${r.stdout}`);
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('the output matcher (what makes a doc fail)', () => {
  const printed = 'a: valid\nwarning: one\nwarning: two\n';
  test('the same lines match; a changed or missing line does not', () => {
    expect(outputMismatch(['a: valid', 'warning: one', 'warning: two'], printed, false)).toBeUndefined();
    expect(outputMismatch(['a: valid', 'warning: uno', 'warning: two'], printed, false)).toMatch(/line 2.*uno/);
    expect(outputMismatch(['a: valid', 'warning: one'], printed, false)).toBe('more output than the doc quotes');
  });
  test('… stands for text in a line, or for lines on its own', () => {
    expect(outputMismatch(['a: …', '…'], printed, false)).toBeUndefined();
    expect(outputMismatch(['a: valid', '...', 'warning: two'], printed, false)).toBeUndefined();
    expect(outputMismatch(['b: …', '…'], printed, false)).toBeDefined();
  });
  test('an excerpt: the lines in order, others between', () => {
    expect(outputMismatch(['a: valid', 'warning: two'], printed, true)).toBeUndefined();
    expect(outputMismatch(['warning: two', 'a: valid'], printed, true)).toBeDefined();
  });
});
