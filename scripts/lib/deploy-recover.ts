/**
 * deploy's recovery after an interrupted run, before each `proxmox-<instance>` stack is applied
 * (docs/guarantees.md, "Interrupting a command"). A request the provider had on its way when tofu was
 * interrupted completes on the server while tofu records nothing of it: the object exists in Proxmox
 * and not in the state, and the next apply would fail creating it. So before every apply deploy
 * reads the stack's state and the instance (a few GETs, scripts/lib/pve-read.ts `readInventory`),
 * finds the objects the stack renders that Proxmox holds and the state lacks
 * (modules/foresight/recover.ts, which also says why each is handled as it is), and brings them in
 * with `tofu import`; an API token (whose secret cannot be read back) is deleted through the API
 * and a possibly half-built VM imported and marked for replacement (`tofu taint`), so that the
 * apply that follows creates them anew; each is said on stderr. Every tofu here runs under deploy's TofuSupervisor (an
 * interrupt stops it as it stops the apply). Secrets are never printed: the token goes in the
 * Authorization header and the tofu environment only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { desiredObjects, planRecovery, stateResources, type RecoveryStep } from '../../modules/foresight/recover';
import type { StackOutcome } from './deploy-run';
import { deleteToken, readInventory, type ReadTarget } from './pve-read';
import { errorBlock, firstError, type TofuSupervisor } from './tofu';

export interface RecoverOptions {
  stack: string;
  /** The stack's directory (cdk.tf.json, initialized). */
  cwd: string;
  /** The administrator token the stack is applied with (`user@realm!name=secret`). */
  token: string;
  supervisor: TofuSupervisor;
  env: NodeJS.ProcessEnv;
  secrets: string[];
  /** Only say what an apply would do (deploy --plan): nothing imported or marked. */
  dryRun?: boolean;
  log(line: string): void;
}

type Json = Record<string, unknown>;

/** The stack's state: the local backend's file read directly, any other backend through `tofu state pull`. */
async function readState(o: RecoverOptions, stack: Json): Promise<unknown> {
  const local = ((stack.terraform as Json | undefined)?.backend as Json | undefined)?.local as { path?: unknown } | undefined;
  if (local && typeof local.path === 'string') {
    const file = resolve(o.cwd, local.path);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  }
  const pulled = await o.supervisor.run(['state', 'pull'], o.cwd, o.env, o.secrets);
  if (pulled.code !== 0) throw new Error(`tofu state pull: ${firstError(pulled.output)}`);
  const at = pulled.output.indexOf('{');
  return at < 0 ? {} : JSON.parse(pulled.output.slice(at));
}

const VERB: Record<RecoveryStep['action'], string> = {
  import: 'imported',
  'import-replace': 'replaced',
  replace: 'replaced',
  'delete-recreate': 'replaced',
  'leave-to-apply': 'left to the apply',
};

/**
 * Brings the orphans of an interrupted run into the stack's state. Undefined when the apply may go
 * on; otherwise the stack's outcome (failed, or interrupted).
 */
export async function recoverStack(o: RecoverOptions): Promise<StackOutcome | undefined> {
  let steps: RecoveryStep[];
  let target: ReadTarget;
  try {
    const stack = JSON.parse(readFileSync(join(o.cwd, 'cdk.tf.json'), 'utf8')) as Json;
    const provider = ((stack.provider as Json | undefined)?.proxmox as Json[] | undefined)?.[0];
    const endpoint = provider?.endpoint;
    if (typeof endpoint !== 'string') return undefined; // not an instance stack pvekaas renders
    const desired = desiredObjects(stack as { resource?: Record<string, Record<string, Json>> });
    if (desired.length === 0) return undefined;
    const state = stateResources(await readState(o, stack));
    target = { instance: o.stack, endpoint, token: o.token, insecure: provider?.insecure === true };
    const inventory = await readInventory(target, {
      tokenUsers: desired.filter((d) => d.kind === 'token').map((d) => d.importId.split('!')[0]),
      fileStores: desired
        .filter((d) => d.kind === 'file')
        .map((d) => ({ node: d.importId.split('/')[0], storage: d.importId.slice(d.importId.indexOf('/') + 1).split(':')[0] })),
    });
    steps = planRecovery(desired, state, inventory);
  } catch (e) {
    // Not a reason to stop: the apply goes on as it would have (and says its own error if the instance is unreachable).
    const message = ((e as Error).message ?? String(e)).split(o.token).join('<token>');
    o.log(`  ${o.stack}: could not check for objects of an interrupted run (${message.slice(0, 300)}); applying as is`);
    return undefined;
  }
  if (steps.length === 0) return undefined;
  const orphans = steps.filter((s) => s.action !== 'replace').length;
  o.log(
    `  ${o.stack}: ${o.dryRun ? 'an apply would first recover' : 'recovering'} ${steps.length} object(s) of an interrupted run` +
      ` (${orphans} in Proxmox but not in the state${orphans < steps.length ? `, ${steps.length - orphans} in the state to be replaced` : ''}):`,
  );
  for (const step of steps) o.log(`    ${VERB[step.action]}: ${step.label} (${step.address}) — ${step.why}`);
  if (o.dryRun) return undefined;
  const lock = ['-no-color', '-lock-timeout=10m'];
  for (const step of steps) {
    if (o.supervisor.interrupted) break;
    if (step.action === 'delete-recreate' && step.deleteId) {
      try {
        await deleteToken(target, step.deleteId);
      } catch (e) {
        return { ok: false, summary: `deleting ${step.label}: ${(e as Error).message.split(o.token).join('<token>').slice(0, 300)}` };
      }
    }
    if (step.importId !== undefined) {
      const r = await o.supervisor.run(['import', '-input=false', ...lock, step.address, step.importId], o.cwd, o.env, o.secrets);
      if (r.code !== 0 && !o.supervisor.interrupted)
        return { ok: false, summary: `tofu import ${step.address} ${step.importId}: ${firstError(r.output)}`, detail: errorBlock(r.output) };
    }
    if (step.action === 'import-replace' || step.action === 'replace') {
      if (o.supervisor.interrupted) break;
      const r = await o.supervisor.run(['taint', ...lock, step.address], o.cwd, o.env, o.secrets);
      if (r.code !== 0 && !o.supervisor.interrupted)
        return { ok: false, summary: `tofu taint ${step.address}: ${firstError(r.output)}`, detail: errorBlock(r.output) };
    }
  }
  if (o.supervisor.interrupted)
    return {
      ok: false,
      interrupted: true,
      summary: `stopped by ${o.supervisor.interrupted} while recovering the objects of an interrupted run, before tofu apply started`,
    };
  return undefined;
}
