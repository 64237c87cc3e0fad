/**
 * What a synthesizing command does first, before it loads cdktf: two ways to start faster that do
 * not change what runs.
 *
 * 1. cdktf's `archiver` (the zip library of `lib/private/fs.js`, with its dependencies) loaded only
 *    when called. cdktf 0.21 requires it at load, through `TerraformAsset`, but calls it only in
 *    `runArchive`, which runs when `lib/private/fs.js` is itself the main module of a separate
 *    process (`archiveSync` starts `node fs.js <src> <dest>`); in the synthesizing process it is
 *    never called, and loading it was about 100 ms of CPU. pvekaas uses no assets; were one used,
 *    the real module is loaded at the first use.
 *
 * 2. A V8 code cache for the CommonJS modules a command loads (Node 20 has no
 * `module.enableCompileCache`; Node 22 does). Imported first by the commands that synthesize
 * (`synth`, the cdktf app, the synth worker, the benchmark's synth process): with it, Node does not
 * parse and compile cdktf, the provider bindings, zod and pvekaas's own modules from source on every
 * run — compiling them (`wrapSafe`) was 16 % of an incremental synth's CPU profile.
 *
 * How: `Module.prototype._compile` is replaced by the wrapper Node itself uses when a program
 * patches `Module.wrap` — the module's source in a `vm.Script` — given the V8 code cache of the
 * previous run as `cachedData`; the function is called as Node calls it, with a `require` made as
 * Node makes it. At exit the cache of every module compiled without one is written (after the run,
 * so it also holds the functions the run compiled lazily), one file per entry script, replaced by a
 * rename. Only V8's compilation is skipped: a cache entry is used only for the very same source
 * (its SHA-1 and path recorded beside it; V8 itself checks the V8 version and flags and rejects
 * anything else), so what runs is the module as it is on disk, and the output is the same bytes
 * (test/synth/compile-cache.test.ts). A module whose source does not compile as a script (an ES
 * module) goes to Node's own `_compile`. Any failure to read or write the cache is silent: the
 * module is compiled from source, as without the cache.
 *
 * Where: `PVEKAAS_COMPILE_CACHE_DIR`, else `node_modules/.cache/pvekaas-compile/` of the project
 * (found from this file); `PVEKAAS_COMPILE_CACHE=0` turns it off.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { threadId } from 'node:worker_threads';

// Node's CommonJS loader: its internals that a replacement of `_compile` needs (as v8-compile-cache uses them).
interface NodeModule {
  exports: unknown;
  filename: string;
  require(id: string): unknown;
}
interface ModuleStatics {
  prototype: { _compile(this: NodeModule, content: string, filename: string, format?: string): unknown };
  wrap(content: string): string;
  _resolveFilename(request: string, parent: NodeModule, isMain: boolean, options?: { paths?: string[] }): string;
  _resolveLookupPaths(request: string, parent: NodeModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
}
const Module = require('node:module') as ModuleStatics;

const FORMAT = 'pvekaas-compile-cache 1';

interface Entry {
  /** SHA-1 of the module's source. */
  source: string;
  data: Buffer;
}

function cacheDir(): string {
  if (process.env.PVEKAAS_COMPILE_CACHE_DIR) return resolve(process.env.PVEKAAS_COMPILE_CACHE_DIR);
  // dist/scripts/lib → the project root (the compiled tree sits in dist/).
  return join(resolve(__dirname, '../../..'), 'node_modules', '.cache', 'pvekaas-compile');
}

/** The cache file of one entry script and Node version: `<entry hash>.bin`, a JSON header line of paths, source hashes and lengths, then the data. */
function cacheFile(dir: string, entry: string): string {
  const key = createHash('sha1').update(`${FORMAT}\0${process.version}\0${process.arch}\0${entry}`).digest('hex');
  return join(dir, `${key.slice(0, 20)}.bin`);
}

function readCacheFile(file: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let blob: Buffer;
  try {
    blob = readFileSync(file);
  } catch {
    return entries;
  }
  try {
    const newline = blob.indexOf(10);
    const header = JSON.parse(blob.subarray(0, newline).toString('utf8')) as { format: string; modules: [string, string, number][] };
    if (header.format !== FORMAT) return entries;
    let offset = newline + 1;
    for (const [path, source, length] of header.modules) {
      entries.set(path, { source, data: blob.subarray(offset, offset + length) });
      offset += length;
    }
    if (offset !== blob.length) entries.clear();
  } catch {
    entries.clear();
  }
  return entries;
}

function writeCacheFile(file: string, entries: Map<string, Entry>): void {
  const modules = [...entries].map(([path, e]) => [path, e.source, e.data.length] as const);
  const header = Buffer.from(`${JSON.stringify({ format: FORMAT, modules })}\n`);
  // Unique per process and thread (a synth worker's threads share the process id): no two writers share a temporary file.
  const temp = `${file}.${process.pid}-${threadId}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temp, Buffer.concat([header, ...[...entries.values()].map((e) => e.data)]));
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}

/** `require` for a module, as Node's makeRequireFunction builds it. */
function makeRequire(mod: NodeModule): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as unknown as NodeJS.Require;
  const resolveFn = ((request: string, options?: { paths?: string[] }) => Module._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolveFn.paths = (request: string) => Module._resolveLookupPaths(request, mod);
  req.resolve = resolveFn;
  // As Node sets it (makeRequireFunction): the main module, also when this file was preloaded with -r.
  req.main = (process as unknown as { mainModule?: NodeJS.Module }).mainModule;
  req.extensions = Module._extensions as NodeJS.RequireExtensions;
  req.cache = Module._cache as NodeJS.Dict<NodeJS.Module>;
  return req;
}

/** Modules of this process compiled from source, and from the code cache. */
const stats = { compiled: 0, fromCache: 0, installed: false };

function install(): void {
  stats.installed = true;
  const main = require.main?.filename ?? process.argv[1];
  if (!main) return;
  const file = cacheFile(cacheDir(), main);
  const previous = readCacheFile(file);
  /** Modules compiled without a usable cache entry: serialized at exit. */
  const fresh = new Map<string, { source: string; script: Script }>();
  const original = Module.prototype._compile;

  Module.prototype._compile = function compileWithCache(this: NodeModule, content: string, filename: string, format?: string) {
    if (format === 'module') return original.call(this, content, filename, format);
    const source = createHash('sha1').update(content).digest('hex');
    const cached = previous.get(filename);
    const usable = cached !== undefined && cached.source === source ? cached.data : undefined;
    let script: Script;
    try {
      // A hashbang line is a comment to Node, not to a function body: blanked, so lines stay where they were.
      const body = content.startsWith('#!') ? `//${content.slice(2)}` : content;
      script = new Script(Module.wrap(body), { filename, cachedData: usable });
    } catch {
      // Not a CommonJS script (an ES module, a syntax error): Node's own loader decides and reports.
      return original.call(this, content, filename, format);
    }
    if (!usable || script.cachedDataRejected) {
      fresh.set(filename, { source, script });
      stats.compiled++;
    } else stats.fromCache++;
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, makeRequire(this), this, filename, dirname(filename));
  } as typeof original;

  process.once('exit', () => {
    if (fresh.size === 0) return;
    // Modules of other runs of this entry (a full synth loads more than an incremental one) stay.
    const entries = new Map(previous);
    for (const [path, { source, script }] of fresh) {
      try {
        entries.set(path, { source, data: script.createCachedData() });
      } catch {
        // left out: compiled from source next time
      }
    }
    writeCacheFile(file, entries);
  });
}

/** cdktf's `archiver`, resolved as `lib/private/fs.js` resolves it, put in Node's module cache as a stand-in that loads the real one at first use. */
function lazyArchiver(): void {
  let path: string;
  try {
    path = require.resolve('archiver', { paths: [join(dirname(require.resolve('cdktf')), 'private')] });
  } catch {
    return;
  }
  const cache = Module._cache as Record<string, { exports: unknown } | undefined>;
  if (cache[path]) return;
  let real: ((...args: unknown[]) => unknown) & Record<PropertyKey, unknown>;
  const load = () => {
    if (!real) {
      delete cache[path];
      real = require(path) as typeof real;
    }
    return real;
  };
  const standIn = new Proxy(function archiver() {}, {
    apply: (_target, thisArg, args: unknown[]) => load().apply(thisArg, args),
    get: (_target, prop) => load()[prop],
  });
  const NodeModuleClass = Module as unknown as new (id: string) => { filename: string; loaded: boolean; exports: unknown };
  const entry = new NodeModuleClass(path);
  entry.filename = path;
  entry.loaded = true;
  entry.exports = standIn;
  cache[path] = entry;
}

if (process.env.PVEKAAS_COMPILE_CACHE !== '0') install();
lazyArchiver();

/** For tests and the benchmark: the cache file an entry script uses, and how this process's modules were compiled. */
export const compileCacheFile = (entry: string): string => cacheFile(cacheDir(), entry);
export const compileCacheStats = (): Readonly<typeof stats> => ({ ...stats });
