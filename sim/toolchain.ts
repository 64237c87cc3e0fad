/**
 * How the simulator's clients (the e2e test, the demo, the bindings generator) reach the real
 * OpenTofu and bpg/proxmox plugin that `scripts/toolchain install` builds into `.toolchain/`.
 */
import { execFileSync, spawn } from 'node:child_process';
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

/** The process environment with `scripts/toolchain env` applied (tofu on PATH, the offline mirror). */
export function toolchainEnv(root: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dump = execFileSync('bash', ['-c', 'eval "$("$0"/scripts/toolchain env)" && env -0', root], { env: base, encoding: 'utf8' });
  const env: NodeJS.ProcessEnv = {};
  for (const entry of dump.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

export interface TofuResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs tofu asynchronously (several stacks apply at once against the simulator). */
export function runTofu(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<TofuResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('tofu', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
