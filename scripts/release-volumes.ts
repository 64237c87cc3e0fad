/**
 * `pvekaas release-volumes --config <lab.yaml> --tenant <name> [--kubeconfig <file>] [--context <name>]
 *   [--tenant-kubeconfig <file>] [--yes] [--timeout-seconds <n>]`
 *
 * Before a tenant with volumes is destroyed (docs/storage.md, "Deleting a tenant"): shows the
 * tenant cluster's claims of `Delete` volumes (and the Pods and StatefulSets that hold them) and the
 * `Retain` volumes that stay; with --yes deletes those claims while the CSI controller still runs,
 * waits until their disks are gone, and lists what stays (scripts/lib/release-volumes-run.ts).
 */
import { runCommand, UsageError, type CommandLine } from './lib/cli';
import { LAB_FLAG, MANAGEMENT_KUBECONFIG_FLAG } from './lib/flags';
import { runReleaseVolumes } from './lib/release-volumes-run';

const usage =
  'pvekaas release-volumes --config <lab.yaml> --tenant <name> [--kubeconfig <file>] [--context <name>] [--tenant-kubeconfig <file>] [--yes] [--timeout-seconds <n>]';

const line: CommandLine = {
  usage,
  flags: {
    config: LAB_FLAG,
    tenant: { type: 'string', value: '<name>', help: 'the tenant about to be destroyed' },
    kubeconfig: MANAGEMENT_KUBECONFIG_FLAG,
    context: { type: 'string', value: '<name>', help: 'its context (default: the lab’s, else current-context)' },
    'tenant-kubeconfig': { type: 'string', value: '<file>', help: "the tenant cluster's admin kubeconfig, instead of its Secret in the management cluster" },
    yes: { type: 'boolean', help: 'delete the claims of Delete volumes and wait for their disks to go (without it: show only, delete nothing)' },
    'timeout-seconds': { type: 'string', value: '<n>', help: 'how long to wait for the disks to go (default 600)' },
  },
  about:
    "Before a tenant's stack is destroyed: deletes the tenant cluster's claims whose volumes are Delete (and the Pods and StatefulSets holding them) " +
    'while the CSI controller still runs, waits until their Proxmox disks are gone, and lists the Retain volumes that stay. Without --yes it only shows what it would do.',
  check: (f) => [...(f.config === undefined ? ['--config <lab.yaml> is required'] : []), ...(f.tenant === undefined ? ['--tenant <name> is required'] : [])],
};

runCommand(line, async (flags) => {
  const timeout = flags['timeout-seconds'] === undefined ? undefined : Number(flags['timeout-seconds']);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0)) throw new UsageError('--timeout-seconds is a whole number of seconds above 0');
  const run = await runReleaseVolumes({
    config: flags.config as string,
    tenant: flags.tenant as string,
    kubeconfig: flags.kubeconfig as string | undefined,
    context: flags.context as string | undefined,
    tenantKubeconfig: flags['tenant-kubeconfig'] as string | undefined,
    yes: flags.yes === true,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(run.output);
});
