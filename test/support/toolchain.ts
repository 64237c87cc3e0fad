/** The project's toolchain (scripts/toolchain) as tests use it: paths, environment, and running tofu. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/** The environment `scripts/toolchain env` sets up (tofu on PATH, the offline mirror), plus extras. */
let toolchain: NodeJS.ProcessEnv | undefined;
export function tofuEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  toolchain ??= toolchainEnv(projectRoot);
  return { ...toolchain, TF_INPUT: '0', ...extra };
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
