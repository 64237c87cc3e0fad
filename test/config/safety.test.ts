/**
 * Safe under bad input (issue 13): a corpus of bad lab descriptions through the real `validate`
 * command (exit 1, file:line, path, fix, bounded time and memory), files that are not regular or
 * too large, aliases, template sequences, credentials in URLs, identities, int32 bounds, paths out
 * of the project, and commands that never end in a stack trace (broken pipes included).
 *
 * The CLI cases run `dist/` (built by `npm test`'s tsc step, as every CLI suite does).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { loadLabFile, parseLab } from '../../modules/config/load';
import { ProblemError, formatPath, formatProblems, show, throwProblems } from '../../modules/config/problems';
import { MAX_LAB_BYTES, escapeTerraformTemplate, labWarnings, redactUrl, urlCredentialProblem } from '../../modules/config/safety';
import { cli, corpusDir, cpuOf, exampleText, exampleWith, noStackTrace, refusal } from './safety-helpers';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-safety-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the corpus of bad lab descriptions, through npm run validate', () => {
  const files = readdirSync(corpusDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();

  it('has every kind of mistake (more than 30 files)', () => {
    expect(files.length).toBeGreaterThan(30);
  });

  it.each(files)('%s: exit 1, file:line, the path, what is wrong and a fix — in bounded time and memory', (name) => {
    const file = join('test/config/corpus', name);
    const text = readFileSync(join(corpusDir, name), 'utf8');
    const path = /^# expect-path: (.*)$/m.exec(text)![1];
    const message = new RegExp(/^# expect-message: (.*)$/m.exec(text)![1]);
    const r = cli('validate.js', ['--config', file]);
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 1, stdout: '' });
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.startsWith(`  ${file}:`) && l.includes(`  ${path}: `));
    expect({ problem: lines[at] ?? r.stderr }).toEqual({ problem: expect.stringMatching(new RegExp(`^  ${file.replace(/[.]/g, '\\.')}:\\d+:\\d+  `)) });
    expect(lines[at]).toMatch(message);
    expect(lines[at + 1]).toMatch(/^ {6}fix: \S/);
    // Where the mistake is, when the fixture says (syntax errors: the line of the mistake, not where a parser noticed it),
    // and then it is the one problem reported (no follow-on errors).
    const expectAt = /^# expect-at: (\d+:\d+)$/m.exec(text)?.[1];
    if (expectAt) {
      expect(lines[at].slice(`  ${file}:`.length).split('  ')[0]).toBe(expectAt);
      expect(lines[0]).toBe(`${file}: 1 problem in the lab description`);
    }
    // Bounded output: no value is printed at length.
    for (const line of lines) expect(line.length).toBeLessThan(1200);
    expect(r.cpuMs).toBeLessThan(20_000);
    noStackTrace(r.stderr);
    // A problem about a credential never prints the credential.
    const secret = /^# secret: (.*)$/m.exec(text)?.[1];
    if (secret) expect(r.stderr).not.toContain(secret);
  });
});

describe('reading the file', () => {
  const refuses = (config: string, reason: RegExp) => {
    const r = cli('validate.js', ['--config', config]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 1, stderr: expect.stringMatching(reason) });
    expect(r.stderr).toContain('fix: ');
    expect(r.cpuMs).toBeLessThan(20_000);
    noStackTrace(r.stderr);
  };

  it('refuses /dev/zero at once instead of reading without end', () => refuses('/dev/zero', /it is a device, not a regular file/));

  it('refuses a FIFO at once instead of waiting for a writer', () => {
    const fifo = join(work, 'lab.fifo');
    execFileSync('mkfifo', [fifo]);
    refuses(fifo, /it is a named pipe \(FIFO\), not a regular file/);
  });

  it('refuses a directory and a missing file', () => {
    refuses(work, /it is a directory|not a regular file/);
    refuses(join(work, 'missing.yaml'), /no such file/);
  });

  it('refuses a file larger than the limit without reading it', () => {
    const big = join(work, 'big.yaml');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, MAX_LAB_BYTES + 1);
    closeSync(fd);
    refuses(big, new RegExp(`${MAX_LAB_BYTES + 1} bytes, more than the ${MAX_LAB_BYTES}`));
  });

  it('reads a file of exactly the limit', () => {
    const file = join(work, 'limit.yaml');
    writeFileSync(file, exampleText + '#'.repeat(MAX_LAB_BYTES - Buffer.byteLength(exampleText)));
    expect(loadLabFile(file).tenants.length).toBe(3);
  });
});

describe('large mappings parse in linear time (issue 26)', () => {
  // The yaml library's duplicate-key check compares each key with every earlier one: a lab with
  // 200,000 keys in one mapping (3.3 MiB) took over 120 s to report its one problem.
  const keys = (n: number, indent: string) => Array.from({ length: n }, (_, i) => `${indent}k${i}: ${i}`).join('\n');

  it('reports 200,000 unknown keys of one mapping in seconds, the duplicate of one of them at its line', () => {
    const text = `${exampleText}\nextra:\n${keys(200_000, '  ')}\n  k5: again\n`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(3 * 1024 * 1024);
    const { value: e, cpuMs } = cpuOf(() => refusal(text));
    expect(cpuMs).toBeLessThan(30_000);
    expect(e.problems.map((p) => [p.message, p.line])).toEqual([['YAML syntax: Map keys must be unique', text.split('\n').length - 1]]);
  }, 120_000);

  it('points each of 50,000 unknown fields at its own line, in seconds (finding the line of each key was quadratic too)', () => {
    const text = exampleText.replace(/^management:\n/m, `management:\n${keys(50_000, '  ')}\n`);
    const { value: e, cpuMs } = cpuOf(() => refusal(text));
    expect(cpuMs).toBeLessThan(30_000);
    expect(e.problems).toHaveLength(50_000);
    const first = exampleText.split('\n').findIndex((l) => l === 'management:') + 2;
    expect([e.problems[0].message, e.problems[0].line, e.problems[49_999].line]).toEqual(['unknown field "k0"', first, first + 49_999]);
  }, 120_000);
});

describe('YAML aliases', () => {
  it('refuses an alias bomb in milliseconds, at the line of the first alias', () => {
    let bomb = 'bomb:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i <= 9; i++)
      bomb += `  a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    const text = exampleText + bomb;
    expect(Buffer.byteLength(bomb)).toBeLessThan(3600);
    const { value: e, cpuMs } = cpuOf(() => refusal(text));
    expect(cpuMs).toBeLessThan(5000);
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0].message).toMatch(/YAML aliases expand the description from \d+ to \d+ values/);
    expect(e.problems[0].line).toBe(exampleText.split('\n').length + 2);
  });

  it('keeps aliases a lab really uses (a shared size)', () => {
    const text = exampleText.replace('size: { cpu: 4, memoryMiB: 8192, diskGiB: 40 }', 'size: &size { cpu: 4, memoryMiB: 8192, diskGiB: 40 }');
    expect(text).not.toBe(exampleText);
    expect(() => parseLab(text)).not.toThrow();
  });

  it('refuses an anchor used inside itself instead of recursing forever', () => {
    const e = refusal(exampleWith(() => undefined).replace(/^tenants:/m, 'loop: &loop [a, *loop]\ntenants:'));
    expect(e.problems.map((p) => [formatPath(p.path), p.message])).toEqual([['loop[1]', expect.stringContaining('refers to the anchor it sits in')]]);
  });
});

describe('no Terraform template sequence from data', () => {
  /** Every string leaf of the example lab, by path. */
  const leaves: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === 'string') leaves.push(path);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(parse(exampleText), []);

  it('refuses ${ and %{ in any string of the description, at its path (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...leaves), fc.constantFrom('${', '%{', '$${', '%%{'), fc.string({ maxLength: 12 }), fc.nat(), (path, sequence, tail, at) => {
        const lab = parse(exampleText);
        let parent = lab;
        for (const s of path.slice(0, -1)) parent = parent[s];
        const key = path[path.length - 1];
        const old = String(parent[key]);
        const cut = at % (old.length + 1);
        parent[key] = `${old.slice(0, cut)}${sequence}${tail}}${old.slice(cut)}`;
        const e = refusal(stringify(lab));
        const here = e.problems.filter((p) => formatPath(p.path) === formatPath(path));
        expect(here.map((p) => p.message)).toEqual([expect.stringContaining('starts a Terraform template sequence')]);
        expect(here[0].line).toBeGreaterThan(0);
        expect(here[0].fix).toMatch(/sensitive variables/);
      }),
      { numRuns: 150 },
    );
  });

  it('escapes for Terraform so that the text is kept exactly ($${ and %%{)', () => {
    expect(escapeTerraformTemplate('a${b}%{c}$${d}%%{e}$x%y')).toBe('a$${b}%%{c}$$${d}%%%{e}$x%y');
  });
});

describe('random damage to the description (fuzz property)', () => {
  const pieces = [
    '${',
    '%{',
    '&a ',
    '*a',
    '[',
    ']',
    '{',
    '}',
    ': ',
    '\n  ',
    '- ',
    '"',
    "'",
    '\u0000',
    '\u202e',
    '..',
    '/',
    '2147483648',
    'system:masters',
    'https://u:p@h/',
    '<<: *a',
    '!!binary ',
    '? ',
  ];

  it('is refused with located problems, or read into a lab without template sequences; never anything else', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), fc.nat({ max: 8 })), { minLength: 1, maxLength: 6 }),
        (edits) => {
          let text = exampleText;
          for (const [at, piece, drop] of edits) {
            const i = at % (text.length + 1);
            text = text.slice(0, i) + piece + text.slice(i + drop);
          }
          let lab;
          try {
            lab = parseLab(text, 'fuzz.yaml');
          } catch (e) {
            expect(e).toBeInstanceOf(ProblemError);
            const problems = (e as ProblemError).problems;
            expect(problems.length).toBeGreaterThan(0);
            for (const p of problems) {
              expect(Array.isArray(p.path)).toBe(true);
              expect(p.message.length).toBeGreaterThan(0);
            }
            expect((e as ProblemError).message.length).toBeLessThan(200 * 1500);
            return;
          }
          expect(JSON.stringify(lab)).not.toMatch(/\$\{|%\{/);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('credentials in URLs', () => {
  it.each([
    ['https://root:pw@pve.lab.example:8006/', 'user or password'],
    ['https://token@pve.lab.example:8006/', 'user or password'],
    ['oci://robot:t@registry.lab.example/charts', 'user or password'],
    ['robot:t@registry.lab.example/mirror', 'user or password before "@"'],
    ['https://s3.lab.example/b/x?X-Amz-Signature=ab', 'X-Amz-Signature'],
    ['https://images.lab.example/x.qcow2?token=ab', '"token"'],
    // Issue 26: forms the first check missed.
    ['https:/root:pw@pve.lab.example:8006/', 'user or password'],
    ['https:\\\\root:pw@pve.lab.example:8006/', 'user or password'],
    ['https://images.lab.example/x.qcow2?AWSAccessKeyId=AKIA1&Signature=ab&Expires=1', '"AWSAccessKeyId"'],
    ['https://storage.googleapis.com/b/x.qcow2?X-Goog-Algorithm=GOOG4&X-Goog-Credential=sa%2F1&X-Goog-Signature=ab', '"X-Goog-Credential"'],
    ['https://acct.blob.core.windows.net/c/x.qcow2?sv=2022&se=2030&sp=r&sig=ab', '"sig"'],
    ['https://d1.cloudfront.net/x.qcow2?Policy=ey&Key-Pair-Id=K1', '"Policy"'],
    ['https://images.lab.example/x.qcow2#token=ab', '"token" in its fragment'],
    ['https://images.lab.example/x.qcow2;token=ab', '"token" as a path parameter'],
    ['https://images.lab.example/x.qcow2?client_secret=ab', '"client_secret"'],
    ['https://images.lab.example/x.qcow2?access_token=ab', '"access_token"'],
    ['https://images.lab.example/x.qcow2?x=1&private_key=ab', '"private_key"'],
  ])('refuses %s', (url, why) => {
    expect(urlCredentialProblem(url)).toContain(why);
    // Shown redacted: the secret never reaches a message.
    expect(redactUrl(url)).not.toMatch(/pw@|=ab\b|AKIA1|sa%2F1/);
  });

  it.each([
    'https://pve.lab.example:8006/',
    'registry.lab.example/mirror',
    'oci://registry.lab.example/charts',
    'https://images.lab.example/x.qcow2?version=2',
    'https://images.lab.example/author/x.qcow2?arch=amd64#sha256',
    'https://images.lab.example/x;v=2/x.qcow2',
  ])('accepts %s', (url) => {
    expect(urlCredentialProblem(url)).toBeUndefined();
  });
});

describe('warnings', () => {
  it('warns about a plain http endpoint and insecure: true, and not about the example: problems of severity warning at their path', () => {
    // The example's tenants have no VLAN: the only warnings are that they share each bridge untagged (test/config/layer2.test.ts).
    expect(labWarnings(parseLab(exampleText)).map((w) => w.path)).toEqual([
      ['proxmox', 'instances', 0, 'bridge'],
      ['proxmox', 'instances', 1, 'bridge'],
    ]);
    const lab = parseLab(
      exampleWith((l) => {
        l.proxmox.instances[1].endpoint = 'http://pmox-fra.lab.example:8006/';
        l.proxmox.instances[0].insecure = true;
      }),
    );
    expect(labWarnings(lab).filter((w) => w.path.at(-1) !== 'bridge')).toEqual([
      expect.objectContaining({
        path: ['proxmox', 'instances', 0, 'insecure'],
        severity: 'warning',
        message: expect.stringMatching(/^proxmox instance pmox-txl: insecure: true skips TLS verification/),
      }),
      expect.objectContaining({
        path: ['proxmox', 'instances', 1, 'endpoint'],
        severity: 'warning',
        value: 'http://pmox-fra.lab.example:8006/',
        fix: 'use https',
      }),
    ]);
  });

  it('never throws: throwProblems refuses the errors only', () => {
    const lab = parseLab(exampleWith((l) => (l.proxmox.instances[0].insecure = true)));
    expect(() => throwProblems(labWarnings(lab))).not.toThrow();
    const error = { path: ['tenants', 0, 'name'], message: 'is wrong' };
    try {
      throwProblems([...labWarnings(lab), error]);
      throw new Error('not thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(ProblemError);
      expect((e as ProblemError).problems).toEqual([error]);
    }
  });

  it('prints them with npm run validate at their line, with the fix, and exits 0', () => {
    const file = join(work, 'insecure.yaml');
    writeFileSync(
      file,
      exampleWith((l) => (l.proxmox.instances[0].insecure = true)),
    );
    const r = cli('validate.js', ['--config', file]);
    expect(r.status).toBe(0);
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => /^\s*insecure: true/.test(l)) + 1;
    expect(line).toBeGreaterThan(0);
    expect(r.stdout).toContain(`warning: ${file}:${line}:`);
    expect(r.stdout).toMatch(
      /proxmox\.instances\[0\]\.insecure: proxmox instance pmox-txl: insecure: true skips TLS verification.*\(got true\); fix: install a trusted certificate/,
    );
    // The version guard's warnings too, like synth.
    expect(r.stdout).toMatch(/^warning: .*management\.versions\.kamajiImageDigest: /m);
  });
});

describe('bounded problem messages', () => {
  it('shows at most 80 characters of any value, however large or shared', () => {
    const shared: unknown[] = [];
    let big: unknown = 'x'.repeat(10_000);
    for (let i = 0; i < 30; i++) big = [big, big];
    shared.push(big);
    const { value: text, cpuMs } = cpuOf(() => show(shared));
    expect(cpuMs).toBeLessThan(100);
    expect(text.length).toBeLessThanOrEqual(80);
    expect(text.endsWith('...')).toBe(true);
    expect(show({ a: 1, b: 'two' })).toBe('{"a":1,"b":"two"}');
  });

  it('bounds each message and the number of problems printed', () => {
    const problems = Array.from({ length: 500 }, (_, i) => ({ path: ['tenants', i, 'name'], message: `m${'y'.repeat(5000)}`, fix: 'f'.repeat(5000) }));
    const text = formatProblems(problems, { file: 'lab.yaml' });
    expect(text.split('\n').length).toBe(1 + 200 * 2 + 1);
    expect(text).toContain('... and 300 more problems');
    for (const line of text.split('\n')) expect(line.length).toBeLessThan(500);
  });
});

describe('identities, bounds and paths', () => {
  const pathsOf = (text: string) => refusal(text).problems.map((p) => formatPath(p.path));

  it('refuses system: groups, in any case', () => {
    expect(pathsOf(exampleWith((l) => (l.tenants[0].groups = ['system:authenticated', 'System:Masters', 'team-a'])))).toEqual([
      'tenants[0].groups[0]',
      'tenants[0].groups[1]',
    ]);
  });

  it('accepts the int32 maximum in a size and refuses one more', () => {
    const at = (cpu: number) => exampleWith((l) => (l.tenants[0].pools[0].size.cpu = cpu));
    expect(pathsOf(at(2147483648))).toContain('tenants[0].pools[0].size.cpu');
    const e = (() => {
      try {
        parseLab(at(2147483647));
        return undefined;
      } catch (err) {
        return err as ProblemError;
      }
    })();
    // The maximum passes the schema (placement may still find it does not fit).
    expect((e?.problems ?? []).map((p) => formatPath(p.path))).not.toContain('tenants[0].pools[0].size.cpu');
  });

  it('refuses "../" in storage, pool and bridge names and a stateDir outside the project, all at once', () => {
    const text = exampleWith((l) => {
      l.proxmox.instances[0].storage = { disks: '../x', images: 'local', cloudInit: 'ci' };
      l.proxmox.instances[0].pools = { vms: '..', templates: 'templates/../vms' };
      l.proxmox.instances[0].bridge = '../vmbr0';
      l.delivery = { local: { stateDir: 'state/../..' } };
    });
    expect(pathsOf(text).sort()).toEqual(
      [
        'delivery.local.stateDir',
        'proxmox.instances[0].bridge',
        'proxmox.instances[0].pools.templates',
        'proxmox.instances[0].pools.vms',
        'proxmox.instances[0].storage.disks',
      ].sort(),
    );
  });
});

describe('a large description full of mistakes', () => {
  const head = exampleText.slice(0, exampleText.indexOf('\ntenants:'));
  const bad = (n: number) =>
    `${head}\ntenants:\n${Array.from({ length: n }, (_, k) => `  - { name: 'BAD_${k}', groups: ['system:masters', 'x y'], pools: [{ name: w, replicas: 2147483648, size: { cpu: 99999999999, memoryMiB: -1, diskGiB: 0 } }] }\n`).join('')}`;
  /** CPU seconds of this process (not wall time: other work on a shared machine does not count). */
  const cpu = (text: string): { seconds: number; error: ProblemError } => {
    const started = process.cpuUsage();
    const error = refusal(text, 'big.yaml');
    const used = process.cpuUsage(started);
    return { seconds: (used.user + used.system) / 1e6, error };
  };

  it('is checked in time linear in its size: four times the tenants, at most 4.5 times the CPU time', () => {
    const small = cpu(bad(2000));
    const large = cpu(bad(8000));
    expect(large.error.problems.length).toBeGreaterThan(8000 * 5);
    expect(large.error.problems.some((p) => formatPath(p.path) === 'tenants[7999].groups[0]')).toBe(true);
    // Was quadratic (every cross-field problem compared with every schema problem): 2.8 s and 18.6 s
    // here, and minutes for an 8 MiB description; now 2.1 s and 5.2 s.
    expect(large.seconds / small.seconds).toBeLessThan(4.5);
  }, 120_000);
});
