/**
 * The twin's `tofu apply` of the Kubernetes stacks and its Terraform state: each stack applied as
 * OpenTofu would (depends_on order, parallelism 10, kubernetes_manifest with the provider's semantics
 * in manifest-applier.ts), destroyed as its destroy walk would, and the second plan. The proxmox
 * stacks go through the real OpenTofu (`applyProxmox`). The first layer of LabTwin (twin/index.ts):
 * the management API server, the simulated lab and the controllers it reads are set up there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SimulatedLab } from '../../scripts/lib/lab-run';
import type { KubeServer } from '../../scripts/lib/kube-apiserver';
import type { RunningControllers } from '../controllers';
import {
  ApplyError,
  ManifestApplier,
  manifestResource,
  sendLikeClientGo,
  type AppliedState,
  type ManifestResource,
  type PlanAction,
} from '../manifest-applier';
import {
  readStack,
  resolveExpressions,
  resourceDependencies,
  type ExpressionSources,
  type KubeObjectJson,
  type StackContents,
  type StackObject,
} from '../stack-objects';
import type { TwinOptions } from './types';

export abstract class TwinStacks {
  protected run!: SimulatedLab;
  protected mgmt!: KubeServer;
  protected controllers?: RunningControllers;
  /** The twin's Terraform state: per stack, each applied resource by address, in apply order. */
  protected readonly state = new Map<string, Map<string, ResourceState>>();
  /** kubernetes_manifest as hashicorp/kubernetes 2.38.0 applies it (manifest-applier.ts). */
  protected applier!: ManifestApplier;
  /** Each proxmox stack's synthesized bytes when it was last applied. */
  protected readonly proxmoxApplied = new Map<string, string>();

  protected constructor(protected readonly options: TwinOptions) {}

  protected log(line: string): void {
    this.options.log?.(line);
  }

  /** Runs tofu in `proxmox-<instance>` with that instance's administrator token. */
  tofu(instance: string, args: string[]) {
    // Anything but a read may change what the stack holds: its next applyProxmox applies it again.
    if (!['plan', 'output', 'show', 'validate'].includes(args[0])) this.proxmoxApplied.delete(instance);
    return this.run.tofu(instance, args);
  }

  /**
   * `tofu apply` of every proxmox stack against the simulator whose synthesized configuration
   * changed since it was last applied, as `npm run deploy -- --against <old lab>` deploys only the
   * stacks that changed (same input, same bytes: an unchanged stack plans nothing).
   */
  async applyProxmox(): Promise<void> {
    const configOf = (n: string) => readFileSync(join(this.run.out, 'stacks', `proxmox-${n}`, 'cdk.tf.json'), 'utf8');
    const all = this.run.lab.proxmox.instances.map((i) => i.name);
    const names = all.filter((n) => this.proxmoxApplied.get(n) !== configOf(n));
    if (names.length === 0) {
      this.log(`proxmox stacks unchanged (${all.map((n) => `proxmox-${n}`).join(', ')}): nothing to apply`);
      return;
    }
    this.log(`applying ${names.map((n) => `proxmox-${n}`).join(', ')} with OpenTofu and bpg/proxmox`);
    const configs = new Map(names.map((n) => [n, configOf(n)]));
    const results = await Promise.all(names.map((n) => this.run.tofu(n, ['apply', '-auto-approve', '-input=false', '-parallelism=6', '-no-color'])));
    const failed = results.map((r, i) => [names[i], r] as const).filter(([, r]) => r.code !== 0);
    for (const [i, r] of results.entries()) {
      if (r.code === 0) this.proxmoxApplied.set(names[i], configs.get(names[i])!);
      else this.proxmoxApplied.delete(names[i]);
    }
    if (failed.length > 0) throw new Error(failed.map(([n, r]) => `tofu apply of proxmox-${n} failed:\n${r.stderr || r.stdout}`).join('\n'));
  }

  protected sources(stack: StackContents): ExpressionSources {
    const stackDir = join(this.run.out, 'stacks', stack.stack);
    return {
      variable: (name) => {
        const declared = stack.config.variable?.[name];
        if (!declared) throw new Error(`${stack.stack}: no variable ${name}`);
        const value = this.options.variables?.[name] ?? declared.default;
        if (value === undefined)
          throw new Error(`${stack.stack}: no value for the required variable ${name} (tofu apply would ask for it): pass it in the twin's variables`);
        return value as string;
      },
      remoteStateOutputs: (dataName) => {
        const data = stack.config.data?.terraform_remote_state?.[dataName];
        if (!data) throw new Error(`${stack.stack}: no data source terraform_remote_state.${dataName}`);
        if (data.backend !== 'local') throw new Error(`${stack.stack}: the twin reads local state only (backend ${data.backend})`);
        const file = resolve(stackDir, data.config.path);
        if (!existsSync(file)) throw new Error(`${stack.stack}: the state ${file} does not exist (apply the stack it reads first)`);
        const state = JSON.parse(readFileSync(file, 'utf8')) as { outputs?: Record<string, { value: unknown }> };
        return Object.fromEntries(Object.entries(state.outputs ?? {}).map(([k, v]) => [k, v.value]));
      },
      secretData: async (namespace, name) => {
        const r = await sendLikeClientGo('GET', () => this.mgmt.client.get(`/api/v1/namespaces/${namespace}/secrets/${name}`));
        if (r.status !== 200) throw new Error(`${stack.stack}: data source Secret ${namespace}/${name}: HTTP ${r.status}`);
        return Object.fromEntries(
          Object.entries((r.body.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
        );
      },
    };
  }

  /**
   * Applies one stack as `tofu apply` would: a resource starts once everything it depends on is
   * applied, up to 10 at a time (tofu's default parallelism); each `kubernetes_manifest` planned and
   * applied with the provider's semantics (manifest-applier.ts: field manager, consistency check,
   * `wait` within `timeouts`), an unchanged one left alone; a replaced one (another name or kind)
   * destroyed first unless `create_before_destroy`. Then what the stack held last time and no
   * longer holds is destroyed in reverse order, each gone before the next. Every failure is
   * reported, with what it kept from applying. `only` applies a subset (no destroys).
   */
  async applyStack(stack: string, only?: (o: StackObject) => boolean): Promise<StackContents> {
    const contents = readStack(this.run.out, stack);
    const sources = this.sources(contents);
    const previous = this.state.get(stack) ?? new Map<string, ResourceState>();
    const next = new Map<string, ResourceState>();
    const objects = only ? contents.objects.filter(only) : contents.objects;
    const byAddress = new Map(objects.map((o) => [o.address, o]));
    const done = new Map<string, Promise<boolean>>();
    const errors: string[] = [];
    const slots = new Semaphore(10);
    const run = (o: StackObject): Promise<boolean> => {
      let p = done.get(o.address);
      if (p) return p;
      p = (async () => {
        const deps = await Promise.all(o.dependsOn.filter((d) => byAddress.has(d)).map((d) => run(byAddress.get(d)!)));
        if (!deps.every(Boolean)) return false;
        await slots.take();
        try {
          const result = await this.applyResource(stack, contents, sources, o, previous.get(o.address));
          next.set(o.address, { ...result, dependsOn: resourceDependencies(contents, o.address) });
          return true;
        } catch (e) {
          const kept = (e as { state?: AppliedState }).state;
          if (kept) next.set(o.address, { kind: 'manifest', applied: kept, dependsOn: resourceDependencies(contents, o.address) });
          errors.push(`${stack}: ${(e as Error).message}`);
          return false;
        } finally {
          slots.give();
        }
      })();
      done.set(o.address, p);
      return p;
    };
    await Promise.all(objects.map(run));
    // State keeps what was not touched (a subset applied, or a failure before it) and what was applied.
    const state = new Map<string, ResourceState>();
    for (const o of contents.objects) {
      const s = next.get(o.address) ?? previous.get(o.address);
      if (s) state.set(o.address, s);
    }
    const stale = only ? [] : [...previous].filter(([address]) => !contents.objects.some((o) => o.address === address));
    if (errors.length === 0) {
      const failed = await this.destroyAll(stack, stale, ' (no longer in the stack)');
      for (const [address, s] of stale) if (failed.has(address)) state.set(address, s);
      errors.push(...failed.values());
    } else for (const [address, s] of stale) state.set(address, s);
    this.state.set(stack, state);
    if (errors.length > 0) throw new Error(`tofu apply of ${stack} failed:\n${errors.join('\n\n')}`);
    return contents;
  }

  /** One resource: plan against its state, then apply (create, update, replace) or leave it. */
  protected async applyResource(
    stack: string,
    contents: StackContents,
    sources: ExpressionSources,
    o: StackObject,
    prior: ResourceState | undefined,
  ): Promise<ResourceState> {
    const object = (await resolveExpressions(o.object, contents, sources)) as KubeObjectJson;
    const [type, name] = o.address.split('.');
    const config = contents.config.resource?.[type]?.[name] ?? {};
    if (type !== 'kubernetes_manifest') {
      // kubernetes_namespace_v1, kubernetes_secret_v1, kubernetes_config_map_v1: the object the
      // provider writes, applied server-side; a changed name replaces it (destroyed after).
      const r = await sendLikeClientGo('PATCH', () => this.mgmt.client.apply(object as never, { fieldManager: 'Terraform' }));
      if (r.status !== 200 && r.status !== 201)
        throw new Error(
          `${o.address} (${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}) refused: HTTP ${r.status}: ${r.body?.message ?? r.text}`,
        );
      const path = await this.mgmt.client.objectPath(object as never);
      if (prior && pathOf(prior) !== path) await this.destroyResource(prior);
      return { kind: 'plain', path, timeoutMs: 600000 };
    }
    const resource = manifestResource(o.address, config, object as ManifestResource['manifest']);
    const state = prior?.kind === 'manifest' ? prior.applied : undefined;
    const plan = await this.applier.plan(resource, state);
    if (plan.action === 'replace' && state) {
      if (!resource.createBeforeDestroy) {
        this.log(`${stack}: ${o.address} must be replaced: destroying the old object first`);
        await this.applier.destroy(state);
        return this.manifestApplied(await this.applier.apply(resource, undefined), stack);
      }
      const created = await this.applier.apply(resource, undefined);
      await this.applier.destroy(state);
      return this.manifestApplied(created, stack);
    }
    return this.manifestApplied(await this.applier.apply(resource, plan.action === 'create' ? undefined : state), stack);
  }

  protected manifestApplied(result: { state: AppliedState; action: PlanAction; warnings: string[] }, stack: string): ResourceState {
    if (result.warnings.length > 0) {
      // OpenTofu only warns, but the field never reaches the server: the rendering is not what runs.
      throw Object.assign(new ApplyError(result.state.resource.address, 'Attribute not found in schema', result.warnings.join('\n')), { state: result.state });
    }
    if (result.action !== 'no-op') this.log(`${stack}: ${result.state.resource.address}: ${result.action}d`);
    return { kind: 'manifest', applied: result.state };
  }

  /**
   * Destroys `resources` (in the order they were applied) as OpenTofu's destroy walks its graph: a
   * resource once every resource that depends on it is gone, up to 10 at a time (`-parallelism`'s
   * default). One that fails stays in state, and so does everything it depends on (never destroyed).
   * A resource without recorded dependencies waits for every one applied after it (the reverse order).
   * Returns the failures by address.
   */
  protected async destroyAll(stack: string, resources: [string, ResourceState][], note = ''): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    const addresses = resources.map(([a]) => a);
    const dependents = new Map<string, string[]>(addresses.map((a) => [a, []]));
    resources.forEach(([address, s], i) => {
      const on = s.dependsOn ?? addresses.slice(0, i);
      for (const d of on) dependents.get(d)?.push(address);
    });
    const slots = new Semaphore(10);
    const done = new Map<string, Promise<boolean>>();
    const byAddress = new Map(resources);
    const destroy = (address: string): Promise<boolean> => {
      let p = done.get(address);
      if (p) return p;
      p = (async () => {
        const gone = await Promise.all(dependents.get(address)!.map(destroy));
        if (!gone.every(Boolean)) return false;
        await slots.take();
        try {
          this.log(`${stack}: destroying ${address}${note}`);
          await this.destroyResource(byAddress.get(address)!);
          return true;
        } catch (e) {
          failed.set(address, `${stack}: ${(e as Error).message}`);
          return false;
        } finally {
          slots.give();
        }
      })();
      done.set(address, p);
      return p;
    };
    await Promise.all(addresses.map(destroy));
    // What was not destroyed because something depending on it failed stays in state too.
    for (const address of addresses)
      if (!failed.has(address) && !(await done.get(address))) failed.set(address, `${stack}: ${address} not destroyed (a resource depending on it failed)`);
    return failed;
  }

  protected async destroyResource(s: ResourceState): Promise<void> {
    if (s.kind === 'manifest') {
      await this.applier.destroy(s.applied);
      return;
    }
    await this.deleteAndWait(s.path, s.path, s.timeoutMs);
  }

  /**
   * The second plan: what `tofu plan` of each Kubernetes stack would change now, after the
   * controllers reconciled — per `kubernetes_manifest`, the provider's plan of the refreshed object
   * (manifest-applier.ts `plan`). Empty when what runs is what the stacks say. Reads only.
   */
  async secondPlan(stacks?: string[]): Promise<{ stack: string; address: string; action: PlanAction; changes: string[] }[]> {
    const out: { stack: string; address: string; action: PlanAction; changes: string[] }[] = [];
    for (const stack of stacks ?? [...this.state.keys()]) {
      const contents = readStack(this.run.out, stack);
      const sources = this.sources(contents);
      const state = this.state.get(stack) ?? new Map<string, ResourceState>();
      for (const o of contents.objects) {
        const [type, name] = o.address.split('.');
        if (type !== 'kubernetes_manifest') continue;
        const object = (await resolveExpressions(o.object, contents, sources)) as KubeObjectJson;
        const resource = manifestResource(o.address, contents.config.resource[type][name], object as ManifestResource['manifest']);
        const s = state.get(o.address);
        const plan = await this.applier.plan(resource, s?.kind === 'manifest' ? s.applied : undefined);
        if (plan.action !== 'no-op') out.push({ stack, address: o.address, action: plan.action, changes: plan.changes });
      }
    }
    return out;
  }

  protected async deleteAndWait(what: string, path: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const r = await sendLikeClientGo('DELETE', () => this.mgmt.client.delete(path));
    if (r.status !== 200 && r.status !== 202 && r.status !== 404) throw new Error(`deleting ${what}: HTTP ${r.status}: ${r.body?.message ?? r.text}`);
    while ((await sendLikeClientGo('GET', () => this.mgmt.client.get(path))).status !== 404) {
      if (Date.now() > deadline) throw new Error(`${what} still exists after ${timeoutMs / 1000} s:\n${this.controllers?.logs(undefined, 10)}`);
      await sleep(500);
    }
  }
}

/** What the twin's state holds for one resource. */
/**
 * A resource as the twin's state holds it; `dependsOn`: what it depends on in its stack (explicit and
 * through references), as OpenTofu records `dependencies` in state for its destroy walk.
 */
export type ResourceState = ({ kind: 'manifest'; applied: AppliedState } | { kind: 'plain'; path: string; timeoutMs: number }) & { dependsOn?: string[] };

function pathOf(s: ResourceState): string {
  return s.kind === 'manifest' ? s.applied.path : s.path;
}

/** At most n at a time. */
class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
