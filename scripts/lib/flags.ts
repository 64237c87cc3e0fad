/**
 * The flags several commands share word for word (scripts/lib/cli.ts parses them): one definition
 * each, so `--help` says the same of the same flag everywhere, and the checks of their values.
 */
import { UsageError, type Flags, type OptionSpec } from './cli';

/** `--config <lab.yaml>`: the lab description, given. */
export const LAB_FLAG: OptionSpec = { type: 'string', value: '<lab.yaml>', help: 'the lab description' };

/** `--config <lab.yaml>` of a command that runs on the example lab without it. */
export const LAB_OR_EXAMPLE_FLAG: OptionSpec = { type: 'string', value: '<lab.yaml>', help: 'the lab description (default: examples/lab.yaml)' };

/** `--config <new lab.yaml> --against <old lab.yaml>`: the two descriptions a change is between. */
export const COMPARED_FLAGS = {
  config: { type: 'string', value: '<new lab.yaml>', help: 'the new lab description' },
  against: { type: 'string', value: '<old lab.yaml>', help: 'the old lab description' },
} as const satisfies Record<string, OptionSpec>;

/** `--against-out <dir>`: the old description's synth output, read instead of synthesizing it. */
export const AGAINST_OUT_FLAG: OptionSpec = {
  type: 'string',
  value: '<dir>',
  help: 'the synth output of the old description (instead of synthesizing it)',
};

/** `--format markdown|json` of a report. */
export const REPORT_FORMAT_FLAG: OptionSpec = { type: 'string', value: 'markdown|json', help: 'the report format (default: markdown)' };

/** `--kubeconfig <file>`: the management cluster. */
export const MANAGEMENT_KUBECONFIG_FLAG: OptionSpec = {
  type: 'string',
  value: '<file>',
  help: 'the management cluster (default: KUBECONFIG, else management.kubernetes.configPath)',
};

/** The two descriptions of `COMPARED_FLAGS`, both required. */
export function comparedLabs(flags: Flags, usage: string): { config: string; against: string } {
  if (!flags.config || !flags.against) throw new UsageError(`--config and --against are both needed\n\nusage: ${usage}`);
  return { config: flags.config as string, against: flags.against as string };
}

/** The value of `REPORT_FORMAT_FLAG`: markdown unless json is asked for. */
export function reportFormat(flags: Flags, usage: string): 'markdown' | 'json' {
  const format = (flags.format as string | undefined) ?? 'markdown';
  if (format !== 'markdown' && format !== 'json') throw new UsageError(`--format must be markdown or json (got ${format})\n\nusage: ${usage}`);
  return format;
}
