/**
 * `npm run --silent export-hcl -- --config <file> --out <dir>`: one directory per workspace with
 * the stack as HCL (`cdk.tf`, its backend or cloud block included) and a README listing the
 * variables it needs — a directory a team can push to a VCS-driven Terraform Cloud workspace.
 *
 * Beside the workspaces: `placement.json` and `machine-deployments.json`, what the next export's
 * guard compares with (as synth's: an upgrade that cannot roll, a node group replaced with no surge).
 *
 * `<dir>` is replaced only when export-hcl made it (or it is empty), atomically, keeping files it
 * did not write (scripts/lib/output-dir.ts). With the local backend, each workspace's state is
 * `<stateDir>/<stack>.tfstate` relative to the directory that holds `<dir>` (the project root for
 * `--out hcl`): the path in the HCL is `../../<stateDir>/…`, the same bytes from any working directory.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { loadLabFile } from '../modules/config/load';
import { workspaceName } from '../constructs/state-backend';
import { runCommand, type CommandLine } from './lib/cli';
import { LAB_FLAG } from './lib/flags';
import { checkOutputDir, exportOutput, refuseConfiguredPathsInside, writeOutputDir } from './lib/output-dir';
import { synthesizeLab } from './lib/synthesize';
import { vipMemoryOfOutput } from './lib/vip-memory';
import { refuseUnrollableUpgrades } from './lib/upgrade-guard';
import { workspaceReadme } from './lib/workspace-readme';
import { MACHINE_DEPLOYMENTS_FILE } from '../modules/tenants/replaced';

const usage = 'npm run --silent export-hcl -- --config <lab.yaml> --out <dir>';

const line: CommandLine = {
  usage,
  flags: {
    config: LAB_FLAG,
    out: { type: 'string', value: '<dir>', help: 'one directory per workspace, replaced atomically' },
  },
  about: 'Writes each stack as HCL with its backend and a README of its variables: a directory per Terraform Cloud workspace.',
};

runCommand(line, (flags) => {
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const outFlag = (flags.out as string | undefined) ?? 'hcl';
  const out = resolve(outFlag);
  checkOutputDir(outFlag, exportOutput);
  const lab = loadLabFile(config);
  // The state path leads from <out>/<workspace>/ to <parent of out>/<stateDir>: never into out itself.
  refuseConfiguredPathsInside(config, lab, outFlag, '--out', dirname(out));
  // synth's guard, against what the last export wrote (placement.json, machine-deployments.json): an
  // upgrade that cannot roll, or a change that replaces node groups with no surge, is refused here too.
  refuseUnrollableUpgrades(config, outFlag);
  // From <out>/<workspace>/ to <parent of out>/<stateDir>: no path of this machine, no dependence on the working directory.
  const stateDirFromStack = posix.join('../..', lab.delivery.local.stateDir);
  // The VIPs the last export gave (its placement.json): kept, as synth keeps its own (modules/tenants/vip.ts).
  const vipMemory = vipMemoryOfOutput(outFlag);
  const written = writeOutputDir(outFlag, exportOutput, (scratch) => {
    // Synthesize twice: HCL for the workspaces, JSON to read variables and outputs reliably.
    const hclDir = join(scratch, '.hcl');
    const jsonDir = join(scratch, '.json');
    const hcl = synthesizeLab({ config, out: hclDir, hcl: true, cache: false, stateDirFromStack, vipMemory });
    synthesizeLab({ config, out: jsonDir, cache: false, stateDirFromStack, vipMemory });
    const cloud = hcl.lab.delivery.backend === 'cloud' ? hcl.lab.delivery.cloud : undefined;
    const dirs = hcl.stacks.map((stack, i) => {
      const dir = cloud ? workspaceName(cloud.workspacePrefix, stack) : stack;
      process.stderr.write(`[${i + 1}/${hcl.stacks.length}] ${dir}\n`);
      cpSync(join(hclDir, 'stacks', stack), join(scratch, dir), { recursive: true });
      const json = JSON.parse(readFileSync(join(jsonDir, 'stacks', stack, 'cdk.tf.json'), 'utf8'));
      writeFileSync(join(scratch, dir, 'README.md'), workspaceReadme({ stack, workspace: dir, lab: hcl.lab, stackJson: json, order: hcl.stacks }));
      return dir;
    });
    for (const file of ['placement.json', MACHINE_DEPLOYMENTS_FILE]) writeFileSync(join(scratch, file), readFileSync(join(hclDir, file)));
    rmSync(hclDir, { recursive: true, force: true });
    rmSync(jsonDir, { recursive: true, force: true });
    return dirs;
  });
  process.stderr.write(`exported ${written.length} workspaces to ${relative(process.cwd(), out) || '.'}/ (${written.join(', ')})\n`);
});
