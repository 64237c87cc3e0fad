/** The project's toolchain (scripts/toolchain) as tests use it: paths, environment, and running tofu. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTofuSync, toolchainEnv } from '../../scripts/lib/tofu';

export const projectRoot = resolve(__dirname, '../..');
const toolchainDir = join(projectRoot, '.toolchain');

export interface ProviderPin {
  source: string;
  version: string;
  served?: boolean;
}

export function providerPins(): Record<string, ProviderPin> {
  return JSON.parse(readFileSync(join(projectRoot, 'modules/versions/toolchain.json'), 'utf8')).providers;
}

/** Throws with the fix when the toolchain is not installed: these suites are part of the test command. */
export function requireToolchain(): void {
  if (!existsSync(join(toolchainDir, 'bin/tofu')) || !existsSync(join(toolchainDir, 'tofurc'))) {
    throw new Error('the toolchain is not installed: run `scripts/toolchain install` (the README test command does this)');
  }
}

/** Whether the local mirror holds a provider (source like "bpg/proxmox") at a version. */
export function mirrorHas(source: string, version: string): boolean {
  return existsSync(join(toolchainDir, 'mirror/registry.opentofu.org', source, version));
}

/**
 * A plugin cache of this test process's own (TF_PLUGIN_CACHE_DIR wins over the toolchain's
 * `plugin_cache_dir`): OpenTofu does not lock its plugin cache, and jest runs test files in
 * parallel processes — one's `tofu init` must never write the cache another's apply reads.
 * Removed when the process exits.
 */
let pluginCache: string | undefined;
export function testPluginCache(): string {
  if (!pluginCache) {
    const dir = mkdtempSync(join(tmpdir(), `pvekaas-plugin-cache-${process.pid}-`));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    pluginCache = dir;
  }
  return pluginCache;
}

/** The environment `scripts/toolchain env` sets up (tofu on PATH, the offline mirror, this process's plugin cache), plus extras. */
let toolchain: NodeJS.ProcessEnv | undefined;
export function tofuEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  toolchain ??= toolchainEnv(projectRoot);
  return { ...toolchain, TF_INPUT: '0', TF_PLUGIN_CACHE_DIR: testPluginCache(), ...extra };
}

/**
 * The argv of a deploy that runs without a terminal (tests, CI): node, the built deploy, the
 * arguments, and `--yes` — deploy refuses to apply without it when stdin is not a terminal.
 * `--plan-only` runs get no `--yes` (deploy refuses the two together).
 */
export function deployArgv(args: string[]): string[] {
  const planOnly = args.includes('--plan-only') || args.includes('--plan');
  return [process.execPath, join(projectRoot, 'dist/scripts/deploy.js'), ...args, ...(planOnly ? [] : ['--yes'])];
}

export interface TofuResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** The toolchain's tofu in `cwd` (scripts/lib/tofu.ts runs it), synchronously. */
export function tofu(cwd: string, args: string[], env: Record<string, string> = {}): TofuResult {
  const r = runTofuSync(args, { cwd, env: tofuEnv(env), tofu: join(toolchainDir, 'bin/tofu') });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** Compiles the project once per test process (scripts are run as compiled JS, like the npm scripts). */
let compiled = false;
export function compileProject(): void {
  // PVEKAAS_TEST_NO_COMPILE=1 reuses dist/ as it is (for iterating on one suite while other code is mid-edit).
  if (compiled || process.env.PVEKAAS_TEST_NO_COMPILE) return;
  execFileSync(join(projectRoot, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: projectRoot, stdio: 'inherit' });
  compiled = true;
}
