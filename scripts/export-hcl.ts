/**
 * `npm run --silent export-hcl -- --config <file> --out <dir>`: one directory per workspace with
 * the stack as HCL (`cdk.tf`, its backend or cloud block included) and a README listing the
 * variables it needs — a directory a team can push to a VCS-driven Terraform Cloud workspace.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { workspaceName } from '../constructs/state-backend';
import { parseFlags, runCommand } from './lib/cli';
import { synthesizeLab } from './lib/synthesize';
import { workspaceReadme } from './lib/workspace-readme';

const usage = 'npm run --silent export-hcl -- --config <lab.yaml> --out <dir>';

runCommand(() => {
  const flags = parseFlags(process.argv.slice(2), { config: 'string', out: 'string' }, usage);
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const out = resolve((flags.out as string | undefined) ?? 'hcl');
  mkdirSync(dirname(out), { recursive: true });
  const work = mkdtempSync(join(dirname(out), '.pvekaas-export-'));
  try {
    // Synthesize twice: HCL for the workspaces, JSON to read variables and outputs reliably.
    const hcl = synthesizeLab({ config, out: join(work, 'hcl'), hcl: true });
    synthesizeLab({ config, out: join(work, 'json') });
    const result = join(work, 'export');
    mkdirSync(result);
    const cloud = hcl.lab.delivery.backend === 'cloud' ? hcl.lab.delivery.cloud : undefined;
    hcl.stacks.forEach((stack, i) => {
      const dir = cloud ? workspaceName(cloud.workspacePrefix, stack) : stack;
      process.stderr.write(`[${i + 1}/${hcl.stacks.length}] ${dir}\n`);
      cpSync(join(work, 'hcl', 'stacks', stack), join(result, dir), { recursive: true });
      const json = JSON.parse(readFileSync(join(work, 'json', 'stacks', stack, 'cdk.tf.json'), 'utf8'));
      writeFileSync(join(result, dir, 'README.md'), workspaceReadme({ stack, workspace: dir, lab: hcl.lab, stackJson: json, order: hcl.stacks }));
    });
    writeFileSync(join(result, 'placement.json'), readFileSync(join(work, 'hcl', 'placement.json')));
    if (existsSync(out)) rmSync(out, { recursive: true, force: true });
    renameSync(result, out);
    process.stderr.write(`exported ${hcl.stacks.length} workspaces to ${relative(process.cwd(), out) || '.'}/ (${readdirSync(out).filter((d) => d !== 'placement.json').join(', ')})\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
