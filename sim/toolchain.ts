/**
 * Where the simulator's clients (the e2e test, the demo, the bindings generator) find the real
 * OpenTofu and bpg/proxmox plugin that `scripts/toolchain install` builds into `.toolchain/`.
 * Running tofu (its environment, the runs) is scripts/lib/tofu.ts's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The pinned versions, from the one place they are pinned. */
export interface ToolchainPins {
  tofu: string;
  proxmox: { source: string; version: string };
}

/** The clone's root: the nearest directory above this file (or else the working directory) whose package.json is pvekaas's. */
export function projectRoot(): string {
  return findRoot(__dirname) ?? findRoot(process.cwd()) ?? fail(`no pvekaas package.json above ${__dirname} or ${process.cwd()}`);
}

function fail(message: string): never {
  throw new Error(message);
}

function findRoot(from: string): string | undefined {
  let dir = from;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'pvekaas') return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function readPins(root: string): ToolchainPins {
  const pins = JSON.parse(readFileSync(join(root, 'modules/versions/toolchain.json'), 'utf8')) as {
    tofu: { version: string };
    providers: { proxmox: { source: string; version: string } };
  };
  return { tofu: pins.tofu.version, proxmox: { source: pins.providers.proxmox.source, version: pins.providers.proxmox.version } };
}

/** Why the toolchain cannot be used here, or undefined when tofu and the pinned bpg/proxmox plugin are installed. */
export function missingToolchain(root: string): string | undefined {
  const pins = readPins(root);
  const tofu = join(root, '.toolchain/bin/tofu');
  if (!existsSync(tofu)) return `${tofu} is missing: run scripts/toolchain install`;
  const plugin = join(root, '.toolchain/mirror/registry.opentofu.org', pins.proxmox.source, pins.proxmox.version, 'linux_amd64');
  if (!existsSync(plugin)) return `the bpg/proxmox ${pins.proxmox.version} plugin is missing from ${plugin}: run scripts/toolchain install`;
  return undefined;
}
