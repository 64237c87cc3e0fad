/**
 * The low findings of issue 42 on lab descriptions, through the real loader: numbers in decimal
 * only (`replicas: 0x3` was read as 3), prototype keys refused (`previous.instances.__proto__` was
 * silently dropped), no cloud-init storage in a system directory (`/etc/pve` was accepted), and a
 * bounded backup retention (10^15 was accepted).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { ProblemError, type Problem } from '../../modules/config/problems';

const exampleText = readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8');
const problemsOf = (text: string): Problem[] => {
  try {
    parseLab(text, 'lab.yaml');
    return [];
  } catch (e) {
    if (e instanceof ProblemError) return e.problems;
    throw e;
  }
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits the raw YAML document before any type applies
const withLab = (change: (lab: any) => void): string => {
  const lab = parse(exampleText);
  change(lab);
  return stringify(lab);
};

describe('numbers are decimal', () => {
  test.each(['0x3', '0o3', '0b11', '1_0'])('replicas: %s is refused, with the decimal form as the fix', (form) => {
    const problems = problemsOf(exampleText.replace('        replicas: 3\n', `        replicas: ${form}\n`));
    expect(problems).toEqual([
      expect.objectContaining({ path: ['tenants', 0, 'pools', 0, 'replicas'], value: form, fix: expect.stringMatching(/^write the number in decimal/) }),
    ]);
  });

  test('decimal numbers, true/false and null read as before', () => {
    const lab = parseLab(exampleText.replace('        replicas: 3\n', '        replicas: +3\n'), 'lab.yaml');
    expect(lab.tenants[0].pools[0].replicas).toBe(3);
    expect(parseLab(exampleText, 'lab.yaml').proxmox.instances[0].storage.disksShared).toBe(true);
  });
});

describe('prototype keys', () => {
  test('previous.instances.__proto__ is refused, not dropped', () => {
    const text = exampleText.replace('    groups: [team-a]\n', '    groups: [team-a]\n    previous:\n      instances:\n        __proto__: { bridge: vmbr9 }\n');
    expect(problemsOf(text)).toEqual([
      expect.objectContaining({ path: ['tenants', 0, 'previous', 'instances', '__proto__'], message: expect.stringMatching(/silently dropped/) }),
    ]);
  });

  test('constructor as a networks key is refused too', () => {
    const text = withLab((l) => (l.tenants[2].networks.constructor = l.tenants[2].networks['pmox-fra']));
    expect(problemsOf(text).map((p) => p.path)).toContainEqual(['tenants', 2, 'networks', 'constructor']);
  });
});

describe('cloud-init storage directory', () => {
  test.each(['/etc/pve', '/etc', '/boot', '/proc', '/sys/kernel', '/var/lib/pve-cluster', '/var', '/root'])('cloudInitPath %s is refused', (path) => {
    const problems = problemsOf(withLab((l) => (l.proxmox.instances[0].storage.cloudInitPath = path)));
    // /var also overlaps /var/lib/vz (its own rule): the system-directory rule fires for each.
    expect(problems).toContainEqual(
      expect.objectContaining({ rule: 'storage.cloud-init-path-system', path: ['proxmox', 'instances', 0, 'storage', 'cloudInitPath'] }),
    );
  });

  test.each(['/var/lib/capmox-cloudinit', '/srv/capmox', '/etcetera'])('cloudInitPath %s is taken', (path) => {
    expect(problemsOf(withLab((l) => (l.proxmox.instances[0].storage.cloudInitPath = path)))).toEqual([]);
  });
});

describe('backup retention', () => {
  const backup = (retention: number) =>
    withLab(
      (l) => (l.management.datastore.backup = { schedule: '0 */6 * * *', retention, s3: { endpoint: 'https://s3.lab.example', bucket: 'kamaji-backups' } }),
    );
  test('10^15 is refused, 100000 taken', () => {
    expect(problemsOf(backup(1e15))).toEqual([expect.objectContaining({ path: ['management', 'datastore', 'backup', 'retention'] })]);
    expect(problemsOf(backup(100000))).toEqual([]);
  });
});

describe('credentials are never echoed', () => {
  test.each(['https:\\\\root:s3cret@pmox-fra.lab.example:8006/', 'https:/root:s3cret@pmox-fra.lab.example:8006/${x}'])(
    'an endpoint %s refused for another reason still shows the URL redacted',
    (endpoint) => {
      const problems = problemsOf(withLab((l) => (l.proxmox.instances[1].endpoint = endpoint)));
      expect(problems.length).toBeGreaterThan(0);
      for (const p of problems) expect(JSON.stringify(p)).not.toContain('s3cret');
    },
  );
});
