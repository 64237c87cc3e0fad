/**
 * The synthesizing commands' fast start (scripts/lib/fast-start.ts), on the compiled tree as a
 * user runs it: the V8 code cache is used for the very same module source only — V8 itself would
 * take the cache of a different source of the same length and run the old code (checked: with the
 * source hash check removed, the second case below prints the old value) — a broken cache file is
 * ignored, `PVEKAAS_COMPILE_CACHE=0` writes nothing, cdktf's archiver is loaded only when called, and
 * `synth` writes the same bytes with a cold cache, a warm one and none.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/toolchain';
import { tree } from './lab-edits';

const fastStart = join(projectRoot, 'dist', 'scripts', 'lib', 'fast-start.js');
const work = mkdtempSync(join(projectRoot, '.test-synth-fast-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `entry` with node and the cache in `cache`; its last stdout line as JSON. */
function run(entry: string, cache: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [entry], { encoding: 'utf8', env: { ...process.env, PVEKAAS_COMPILE_CACHE_DIR: cache, ...env } });
  if (r.status !== 0) throw new Error(`${entry}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { value: string; stats: { compiled: number; fromCache: number; installed: boolean } };
}

function project(name: string): { entry: string; module: string; cache: string } {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'entry.js');
  writeFileSync(
    entry,
    `const fast = require(${JSON.stringify(fastStart)});\nconst value = require('./m.js')();\nconsole.log(JSON.stringify({ value, stats: fast.compileCacheStats() }));\n`,
  );
  return { entry, module: join(dir, 'm.js'), cache: join(dir, 'cache') };
}

describe('the code cache of the synthesizing commands', () => {
  beforeAll(() => {
    if (!existsSync(fastStart)) throw new Error(`${fastStart} is missing: compile first (npx tsc -p tsconfig.json)`);
  });

  it('compiles a module once, then takes it from the cache', () => {
    const p = project('once');
    writeFileSync(p.module, "module.exports = () => 'aaaa';\n");
    expect(run(p.entry, p.cache)).toEqual({ value: 'aaaa', stats: { compiled: 1, fromCache: 0, installed: true } });
    expect(readdirSync(p.cache)).toHaveLength(1);
    expect(run(p.entry, p.cache)).toEqual({ value: 'aaaa', stats: { compiled: 0, fromCache: 1, installed: true } });
  });

  it('runs a changed module as it is now, also when its source keeps its length', () => {
    const p = project('changed');
    writeFileSync(p.module, "module.exports = () => 'aaaa';\n");
    run(p.entry, p.cache);
    writeFileSync(p.module, "module.exports = () => 'bbbb';\n");
    expect(run(p.entry, p.cache)).toEqual({ value: 'bbbb', stats: { compiled: 1, fromCache: 0, installed: true } });
    expect(run(p.entry, p.cache).value).toBe('bbbb');
  });

  it('ignores a broken cache file and writes a good one', () => {
    const p = project('broken');
    writeFileSync(p.module, "module.exports = () => 'aaaa';\n");
    run(p.entry, p.cache);
    const file = join(p.cache, readdirSync(p.cache)[0]);
    const good = readFileSync(file);
    for (const broken of [
      good.subarray(0, good.length - 7),
      Buffer.from('not a cache\n'),
      Buffer.concat([good.subarray(0, good.indexOf(10) + 1), Buffer.alloc(good.length - good.indexOf(10) - 1, 0x41)]),
    ]) {
      writeFileSync(file, broken);
      expect(run(p.entry, p.cache).value).toBe('aaaa');
    }
    expect(run(p.entry, p.cache)).toEqual({ value: 'aaaa', stats: { compiled: 0, fromCache: 1, installed: true } });
  });

  it('is off with PVEKAAS_COMPILE_CACHE=0: nothing read or written', () => {
    const p = project('off');
    writeFileSync(p.module, "module.exports = () => 'aaaa';\n");
    expect(run(p.entry, p.cache, { PVEKAAS_COMPILE_CACHE: '0' })).toEqual({ value: 'aaaa', stats: { compiled: 0, fromCache: 0, installed: false } });
    expect(existsSync(p.cache)).toBe(false);
  });

  it("loads cdktf's archiver only when it is called", () => {
    const p = project('archiver');
    writeFileSync(
      p.entry,
      `require(${JSON.stringify(fastStart)});\nrequire('cdktf');\nconst loaded = () => Object.keys(require.cache).some((f) => /node_modules\\/archiver\\/lib\\/core\\.js$/.test(f));\n` +
        `const before = loaded();\nconst fs = require(require.resolve('cdktf/lib/private/fs', { paths: [${JSON.stringify(projectRoot)}] }));\n` +
        `const archiver = require(require.resolve('archiver', { paths: [require('node:path').dirname(require.resolve('cdktf/lib/private/fs', { paths: [${JSON.stringify(projectRoot)}] }))] }));\n` +
        `const zip = archiver('zip');\nconsole.log(JSON.stringify({ value: JSON.stringify([before, loaded(), typeof zip.pipe, typeof fs.archiveSync]), stats: {} }));\n`,
    );
    expect(JSON.parse(run(p.entry, p.cache).value)).toEqual([false, true, 'function', 'function']);
  });

  it('synth writes the same bytes with a cold cache, a warm one and none', () => {
    const cache = join(work, 'synth-cache');
    const synth = (out: string, env: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [join('dist', 'scripts', 'synth.js'), '--config', 'examples/lab.yaml', '--out', out, '--full'], {
        cwd: projectRoot,
        encoding: 'utf8',
        env: { ...process.env, CHECKPOINT_DISABLE: '1', PVEKAAS_COMPILE_CACHE_DIR: cache, ...env },
      });
      if (r.status !== 0) throw new Error(r.stderr);
      return tree(out);
    };
    const none = synth(join(work, 'synth-none'), { PVEKAAS_COMPILE_CACHE: '0' });
    const cold = synth(join(work, 'synth-cold'));
    expect(readdirSync(cache)).toHaveLength(1);
    const warm = synth(join(work, 'synth-warm'));
    expect(Object.keys(none).length).toBeGreaterThan(5);
    expect(cold).toEqual(none);
    expect(warm).toEqual(none);
  }, 120_000);
});
