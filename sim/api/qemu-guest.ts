/**
 * The simulated guest of a QEMU VM: its OS, its agent (available as qemu-server checks it) and what
 * it answers to `exec`.
 */
import { fail } from '../errors';
import { type Vm } from '../instance';
import { type Call } from './router';
import { vmid } from './qemu-config';

/** The simulated guest: an Ubuntu cloud image with qemu-guest-agent and cloud-init. */
export const GUEST_OS = {
  id: 'ubuntu',
  name: 'Ubuntu',
  'pretty-name': 'Ubuntu 24.04.1 LTS',
  version: '24.04.1 LTS (Noble Numbat)',
  'version-id': '24.04',
  'kernel-release': '6.8.0-45-generic',
  'kernel-version': '#45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024',
  machine: 'x86_64',
};

/**
 * The checks of PVE::QemuServer::Agent agent_available, in order, for a guest whose agent starts
 * with the VM (it answers once the VM has run for the simulator's `agentStartMs`).
 */
export function agent({ inst, authid, at }: Call): Vm {
  const vm = inst.vm(at.node, vmid(at));
  inst.require(authid, `/vms/${vm.vmid}`, ['VM.Monitor']);
  const conf = vm.config.get('agent');
  if (conf === undefined) fail('No QEMU guest agent configured');
  if (vm.status !== 'running') fail(`VM ${vm.vmid} is not running`);
  const enabled = /^(enabled=)?(1|true|on|yes)(,|$)/.test(conf);
  if (!enabled || Date.now() - (vm.startedAt ?? 0) < inst.options.agentStartMs) fail('QEMU guest agent is not running');
  return vm;
}

/** What the guest answers to `exec` (PVE returns exec-status with exited 0/1 and decoded output). */
export function guestCommand(command: string[]): { exited: number; exitcode: number; 'out-data'?: string; 'err-data'?: string } {
  const line = command.join(' ');
  if (line === 'cloud-init status' || line === 'cloud-init status --wait') return { exited: 1, exitcode: 0, 'out-data': 'status: done\n' };
  if (command[0] === 'true') return { exited: 1, exitcode: 0 };
  return { exited: 1, exitcode: 127, 'err-data': `${command[0]}: command not found\n` };
}
