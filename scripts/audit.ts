/**
 * `npm run --silent audit -- --config <lab.yaml> [--tokens <file.json>] [--format markdown|json]`
 *
 * Reads every Proxmox instance of the description with a read-only API token (`GET
 * /cluster/resources`) and reports drift from the plan: VMs of pvekaas's tenants on another node
 * or instance than planned, VMs in the CAPMOX pool or with pvekaas's template tags that belong to
 * no tenant, and planned capacity the nodes no longer have. Tokens: a JSON object by instance name,
 * from --tokens <file> or the environment variable PVEKAAS_AUDIT_TOKENS. Exit 0: no drift; 2:
 * drift (for CI); 1: an instance could not be read, or a usage or description error.
 */
import { loadLabFile } from '../modules/config/load';
import { runCommand, UsageError, UserError, type CommandLine } from './lib/cli';
import { LAB_FLAG, REPORT_FORMAT_FLAG, reportFormat } from './lib/flags';
import { runAudit } from './lib/audit-run';
import { readInputFile } from './lib/read-input';

const usage =
  'npm run --silent audit -- --config <lab.yaml> [--tokens <tokens.json>] [--format markdown|json]   (or PVEKAAS_AUDIT_TOKENS=\'{"<instance>": "<user@realm!name=secret>"}\')';

function parseTokens(text: string, from: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UserError(`${from}: not JSON; expected an object of tokens by instance name, e.g. {"pmox-txl": "auditor@pve!audit=<secret>"}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new UserError(`${from}: expected an object of tokens (strings) by instance name, e.g. {"pmox-txl": "auditor@pve!audit=<secret>"}`);
  }
  return parsed as Record<string, string>;
}

const line: CommandLine = {
  usage,
  flags: {
    config: LAB_FLAG,
    tokens: { type: 'string', value: '<tokens.json>', help: 'read-only API tokens by instance name (or PVEKAAS_AUDIT_TOKENS)' },
    format: REPORT_FORMAT_FLAG,
  },
  about: 'Reads every Proxmox instance with a read-only token and reports drift from the plan.',
  exitCodes: 'exit codes: 0 no drift; 2 drift (for CI); 1 an instance could not be read, or a usage or description error',
};

runCommand(line, async (flags) => {
  if (!flags.config) throw new UsageError(`--config is needed\n\nusage: ${usage}`);
  const format = reportFormat(flags, usage);
  const lab = loadLabFile(flags.config as string);
  const tokens = flags.tokens
    ? parseTokens(
        readInputFile(flags.tokens as string, `--tokens ${String(flags.tokens)}`, 'give a JSON file of read-only tokens by instance (docs/usage.md)'),
        flags.tokens as string,
      )
    : parseTokens(process.env.PVEKAAS_AUDIT_TOKENS || '{}', 'PVEKAAS_AUDIT_TOKENS');
  const run = await runAudit(lab, tokens, flags.config as string);
  process.stdout.write(format === 'json' ? `${JSON.stringify({ ...run.report, errors: run.errors }, null, 2)}\n` : run.markdown);
  process.exitCode = run.code;
});
