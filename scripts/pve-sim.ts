/**
 * `npm run --silent pve-sim -- [--config <lab.yaml>] [--instances a,b] [--port <first port>]
 *   [--task-ms <ms>] [--faults <faults.json>]`
 *
 * Runs the Proxmox VE API simulator until Ctrl-C: one https endpoint per instance of the lab
 * (or the listed ones; a name the lab does not know gets one node `<name>-1`), and prints each
 * endpoint with its administrator token. See docs/proxmox.md.
 */
import { loadLabFile } from '../modules/config/load';
import { PveSimulator, instanceSpecsFromLab, type FaultSpec, type InstanceSpec } from '../sim';
import { runCommand, UserError, type CommandLine } from './lib/cli';
import { readInputFile } from './lib/read-input';

const usage =
  'npm run --silent pve-sim -- [--config examples/lab.yaml] [--instances pmox-txl,pmox-fra] [--port 8006] [--task-ms 250] [--faults faults.json] [--quiet]';

const line: CommandLine = {
  usage,
  flags: {
    config: { type: 'string', value: '<lab.yaml>', help: 'the lab description whose instances to simulate (default: examples/lab.yaml)' },
    instances: { type: 'string', value: '<a,b>', help: 'simulate only these instances' },
    port: { type: 'string', value: '<port>', help: 'the first port, one per instance (default: free ports)' },
    'task-ms': { type: 'string', value: '<ms>', help: 'how long a simulated task runs (default: 250)' },
    faults: { type: 'string', value: '<faults.json>', help: 'faults to inject (docs/proxmox.md)' },
    quiet: { type: 'boolean', help: 'print no log lines' },
  },
  about: 'Runs the Proxmox VE API simulator until Ctrl-C: one https endpoint per instance, each printed with its administrator token.',
};

runCommand(line, async (flags) => {
  const config = (flags.config as string | undefined) ?? 'examples/lab.yaml';
  const lab = loadLabFile(config);
  const names = ((flags.instances as string | undefined) ?? '').split(',').filter(Boolean);
  const known = new Set(lab.proxmox.instances.map((i) => i.name));
  const specs: InstanceSpec[] = (names.length ? names : [...known]).map((name) =>
    known.has(name) ? instanceSpecsFromLab(lab, [name])[0] : { name, nodes: [{ name: `${name}-1`, cpu: 16, memoryMiB: 65536 }] },
  );
  const firstPort = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(firstPort) || firstPort < 0 || firstPort > 65535) throw new UserError(`--port must be a port number, got ${String(flags.port)}`);
  const taskMs = flags['task-ms'] === undefined ? 250 : Number(flags['task-ms']);
  let faults: FaultSpec | undefined;
  if (flags.faults) {
    try {
      faults = JSON.parse(
        readInputFile(flags.faults as string, `--faults ${String(flags.faults)}`, 'give a JSON file of faults (docs/proxmox.md)'),
      ) as FaultSpec;
    } catch (e) {
      if (e instanceof UserError) throw e;
      throw new UserError(`cannot read --faults ${String(flags.faults)}: ${(e as Error).message}`);
    }
  }
  const sim = await PveSimulator.start({
    instances: specs.map((s, i) => ({ ...s, port: firstPort ? firstPort + i : 0 })),
    taskDurationMs: taskMs,
    faults,
    log: flags.quiet ? undefined : (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`Proxmox VE API simulator (not a real Proxmox): ${sim.names.length} instance(s) from ${config}\n`);
  for (const name of sim.names) {
    const s = sim.instance(name);
    process.stdout.write(`\n  ${name}  ${sim.endpoint(name)}  nodes: ${[...s.nodes.keys()].join(', ')}\n`);
    process.stdout.write(`    TF_VAR_proxmox_api_token='${sim.adminToken(name)}'\n`);
    process.stdout.write(`    curl -k -H 'Authorization: PVEAPIToken=${sim.adminToken(name)}' ${sim.endpoint(name)}api2/json/nodes\n`);
    process.stdout.write(`    root@pam password (ticket login): ${sim.rootPassword(name)}\n`);
    process.stdout.write(`    curl -k -H 'Authorization: Bearer ${sim.adminSecret}' ${sim.endpoint(name)}_sim/state\n`);
  }
  process.stdout.write('\nCtrl-C stops it; its state lives in memory only.\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.stop();
});
