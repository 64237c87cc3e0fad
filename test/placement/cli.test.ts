/** The command line: compiled script on the example lab; exit codes; stdout for output, stderr for errors. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

const root = join(__dirname, '../..');
const script = join(root, 'dist/scripts/placement.js');
const exampleLab = join(root, 'examples/lab.yaml');
let scratch: string;

beforeAll(() => {
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  } catch (e) {
    // Type errors elsewhere in the tree still emit JavaScript; only ours must stop this suite.
    const output = String((e as { stdout?: Buffer }).stdout ?? '');
    if (/^(modules\/placement|scripts\/placement|bench\/placement)/m.test(output)) throw new Error(`placement does not compile:\n${output}`);
  }
  scratch = mkdtempSync(join(tmpdir(), 'placement-cli-'));
}, 120_000);

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function labFile(name: string, change: (lab: any) => void): string {
  const lab = parse(readFileSync(exampleLab, 'utf8'));
  change(lab);
  const file = join(scratch, name);
  writeFileSync(file, stringify(lab));
  return file;
}

describe('npm run placement', () => {
  it('prints the markdown report by default and exits 0 with nothing on stderr', () => {
    const r = run('--config', exampleLab);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^# Placement\n/);
    expect(r.stdout).toContain('### tenant-c (MultiInstance)');
  });

  it('prints JSON and SVG on request, the same bytes every run', () => {
    const json = run('--config', exampleLab, '--format', 'json');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout).tenants.map((t: { name: string }) => t.name)).toEqual(['tenant-a', 'tenant-b', 'tenant-c']);
    expect(run('--config', exampleLab, '--format=json').stdout).toBe(json.stdout);
    const svg = run('--config', exampleLab, '--format', 'svg');
    expect(svg.status).toBe(0);
    expect(svg.stdout).toMatch(/^<\?xml/);
    expect(svg.stdout.trim().endsWith('</svg>')).toBe(true);
  });

  it('--against shows what changes, in markdown and in json', () => {
    const old = labFile('old.yaml', (lab) => (lab.tenants.find((t: any) => t.name === 'tenant-c').pools[0].replicas = 3));
    const md = run('--config', exampleLab, '--against', old);
    expect(md.status).toBe(0);
    expect(md.stdout).toContain('## Changes against the other description');
    // 3 → 5 over two instances: 2 + 1 becomes 3 + 2, so two machines are added.
    const json = JSON.parse(run('--config', exampleLab, '--against', old, '--format', 'json').stdout);
    const added = json.diff.added.filter((c: any) => c.tenant === 'tenant-c').reduce((n: number, c: any) => n + c.replicas, 0);
    const moved = json.diff.moved.filter((c: any) => c.tenant === 'tenant-c').reduce((n: number, c: any) => n + c.replicas, 0);
    expect(added).toBe(2);
    expect(json.diff.removed).toEqual([]);
    expect(moved).toBeLessThanOrEqual(1);
  });

  it('refuses unknown options and missing values with the usage, exit 1 and nothing on stdout', () => {
    for (const args of [['--config', exampleLab, '--colour'], ['--format', 'json'], ['--config', exampleLab, '--format', 'pdf'], ['--config']]) {
      const r = run(...args);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('usage: npm run --silent placement --');
    }
    const r = run('--config', exampleLab, '--colour', 'red', '--format', 'pdf');
    expect(r.stderr).toContain('unknown argument "--colour"');
    expect(r.stderr).toContain('--format must be one of json, markdown, svg (got pdf)');
    expect(run('--config', exampleLab, '--format', 'svg', '--against', exampleLab).stderr).toContain('the svg has no change view');
  });

  it('prints configuration errors from the loader, with the file, and no stack trace', () => {
    const missing = run('--config', join(scratch, 'nope.yaml'));
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('nope.yaml');
    expect(missing.stderr).toContain('cannot read the lab description: no such file');
    const bad = labFile('bad.yaml', (lab) => (lab.tenants[0].pools[0].replicas = 'three'));
    const r = run('--config', bad);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('tenants[0].pools[0].replicas');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints every placement problem when the lab does not fit, from both files with --against', () => {
    const big = labFile('big.yaml', (lab) => {
      lab.tenants[0].pools[0].replicas = 40;
      lab.tenants[2].pools[0].replicas = 200;
    });
    const r = run('--config', big, '--against', big);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${big}: the lab does not fit its Proxmox instances (2 problems)`);
    expect(r.stderr).toContain(`${big} (--against): the lab does not fit`);
    expect(r.stderr).toContain('tenant tenant-a, pool workers (Default mode places every machine on the default instance): does not fit on pmox-txl');
    expect(r.stderr).toContain('tenant tenant-c, pool workers (MultiInstance): does not fit on');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
