#!/usr/bin/env node
/**
 * The app command of cdktf.json: compiles the project only when a source is newer than the last
 * compile this launcher made, then runs the compiled app (dist/scripts/cdktf-app.js) in this
 * process. `npx cdktf synth|diff|deploy` then costs what the plain `node dist/scripts/synth.js`
 * path costs plus the CLI's own start, instead of a full `tsc` every call.
 *
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync, mkdirSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const stamp = join(root, 'dist', '.cdktf-launch-stamp');
const app = join(root, 'dist', 'scripts', 'cdktf-app.js');

/** The newest modification time of the sources tsc compiles (tsconfig.json "include") and of the build's inputs. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ['stacks', 'constructs', 'modules', 'scripts', 'twin', 'sim', '.gen', 'bench']) walk(join(root, dir));
  for (const file of ['tsconfig.json', 'package-lock.json', 'main.ts'])
    if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

const fresh = existsSync(app) && existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource();
if (!fresh) {
  const started = Date.now();
  try {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch {
    process.stderr.write('pvekaas: the TypeScript sources do not compile (see above); fix them and run again\n');
    process.exit(1);
  }
  mkdirSync(join(root, 'dist'), { recursive: true });
  // The stamp carries the time the compile started: a source saved during it counts as newer.
  writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
  const { utimesSync } = require('node:fs');
  utimesSync(stamp, started / 1000, started / 1000);
}
require(app);
