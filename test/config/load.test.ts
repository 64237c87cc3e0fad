import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { labJsonSchema } from '../../modules/config/json-schema';
import { loadLabFile, parseLab } from '../../modules/config/load';
import { ProblemError, formatPath, type Problem } from '../../modules/config/problems';

const root = join(__dirname, '../..');
const exampleText = readFileSync(join(root, 'examples/lab.yaml'), 'utf8');

/** The example lab with one change applied, as YAML text. */
function exampleWith(change: (lab: any) => void): string {
  const lab = parse(exampleText);
  change(lab);
  return stringify(lab);
}

function problemsOf(text: string): Problem[] {
  try {
    parseLab(text, 'lab.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemError);
    return (e as ProblemError).problems;
  }
  throw new Error('expected the description to be refused');
}

function only(text: string): Problem {
  const problems = problemsOf(text);
  expect(problems.map((p) => formatPath(p.path))).toHaveLength(1);
  return problems[0];
}

describe('the example lab', () => {
  it('is valid and keeps the default instance first', () => {
    const lab = loadLabFile(join(root, 'examples/lab.yaml'));
    expect(lab.proxmox.instances.map((i) => i.name)).toEqual(['pmox-txl', 'pmox-fra']);
    expect(lab.tenants.map((t) => t.placement.mode).sort()).toEqual(['Default', 'MultiInstance', 'SingleInstance']);
  });

  it('fills documented defaults', () => {
    const lab = parseLab(exampleWith((l) => delete l.proxmox.reserve));
    expect(lab.proxmox.reserve).toEqual({ cpu: 2, memoryMiB: 8192 });
    expect(lab.tenants[0].placement.mode).toBe('Default');
    expect(lab.proxmox.instances[1].insecure).toBe(false);
  });
});

describe('a malformed lab description', () => {
  it('reports an unknown field with a did-you-mean fix and its line', () => {
    const p = only(
      exampleWith((l) => (l.tenants[0].pools[0] = { ...l.tenants[0].pools[0], replica: 3, replicas: undefined })).replace(/\n\s+replicas: null/, ''),
    );
    expect(formatPath(p.path)).toBe('tenants[0].pools[0].replica');
    expect(p.fix).toContain('"replicas"');
    expect(p.line).toBeGreaterThan(1);
  });

  it('reports a pool pinned to an instance that does not exist, suggesting the closest', () => {
    const p = only(exampleWith((l) => (l.tenants[1].pools[0].instance = 'pmox-fr')));
    expect(formatPath(p.path)).toBe('tenants[1].pools[0].instance');
    expect(p.value).toBe('pmox-fr');
    expect(p.fix).toContain('"pmox-fra"');
  });

  it('reports duplicate instance and tenant names', () => {
    const problems = problemsOf(
      exampleWith((l) => {
        l.proxmox.instances[1].name = 'pmox-txl';
        l.tenants[2].name = 'tenant-a';
      }),
    );
    const paths = problems.map((p) => formatPath(p.path));
    expect(paths).toContain('proxmox.instances[1].name');
    expect(paths).toContain('tenants[2].name');
  });

  it('reports a template given in both forms', () => {
    const p = only(exampleWith((l) => (l.proxmox.instances[0].template.templateSelector = { matchTags: ['capi'] })));
    expect(formatPath(p.path)).toBe('proxmox.instances[0].template');
    expect(p.message).toContain('exactly one form');
  });

  it('reports a sourceNode that is not a node of the instance', () => {
    const p = only(exampleWith((l) => (l.proxmox.instances[0].template.sourceNode = 'pmox-txl-9')));
    expect(formatPath(p.path)).toBe('proxmox.instances[0].template.sourceNode');
    expect(p.fix).toContain('pmox-txl-1');
  });

  it('reports unknown instances in a tenant placement', () => {
    const p = only(
      exampleWith((l) => {
        l.tenants[2].placement.instances = ['pmox-txl', 'pmox-xyz'];
        delete l.tenants[2].networks; // pmox-fra's network would be unused then: a second problem
      }),
    );
    expect(formatPath(p.path)).toBe('tenants[2].placement.instances[1]');
  });

  it('reports non-positive replicas and sizes', () => {
    const problems = problemsOf(
      exampleWith((l) => {
        l.tenants[0].pools[0].replicas = 0;
        l.tenants[0].pools[0].size.cpu = -1;
      }),
    );
    expect(problems.map((p) => formatPath(p.path)).sort()).toEqual(['tenants[0].pools[0].replicas', 'tenants[0].pools[0].size.cpu']);
  });

  it('reports autoscaling min above max', () => {
    const p = only(exampleWith((l) => (l.tenants[1].pools[0].autoscaling = { min: 7, max: 3 })));
    expect(formatPath(p.path)).toBe('tenants[1].pools[0].autoscaling.min');
    expect(p.fix).toBe('make min at most max');
  });

  it('reports a pool with both replicas and autoscaling, and one with neither', () => {
    const problems = problemsOf(
      exampleWith((l) => {
        l.tenants[1].pools[0].replicas = 2;
        delete l.tenants[0].pools[0].replicas;
      }),
    );
    expect(problems.map((p) => formatPath(p.path)).sort()).toEqual(['tenants[0].pools[0]', 'tenants[1].pools[0].autoscaling']);
  });

  it('reports names that are not DNS labels and a bad endpoint', () => {
    const problems = problemsOf(
      exampleWith((l) => {
        l.tenants[0].name = 'Tenant_A';
        l.proxmox.instances[0].endpoint = 'pmox-txl:8006';
      }),
    );
    expect(problems.map((p) => formatPath(p.path)).sort()).toEqual(['proxmox.instances[0].endpoint', 'tenants[0].name']);
    expect(problems.find((p) => formatPath(p.path) === 'tenants[0].name')?.value).toBe('Tenant_A');
  });

  it('reports overlapping node ranges and a VIP inside a node range', () => {
    const problems = problemsOf(
      exampleWith((l) => {
        l.tenants[1].network.addresses = ['10.10.1.50-10.10.1.70'];
        l.tenants[2].vip = '10.10.3.20';
      }),
    );
    const paths = problems.map((p) => formatPath(p.path));
    expect(paths).toContain('tenants[1].network.addresses[0]');
    expect(paths).toContain('tenants[2].vip');
    expect(problems.find((p) => formatPath(p.path) === 'tenants[1].network.addresses[0]')?.message).toContain('tenant tenant-a');
  });

  it('reports a Kubernetes version no eligible instance has a template for, once per instance', () => {
    const problems = problemsOf(exampleWith((l) => (l.tenants[1].kubernetesVersion = 'v1.36.1')));
    expect(problems.map((p) => formatPath(p.path))).toEqual(['tenants[1].kubernetesVersion', 'tenants[1].kubernetesVersion']);
    // A fixed template serves the one version it holds (issue 11 B4), so pmox-txl has none for v1.36.1 either.
    expect(problems.map((p) => p.message).sort()).toEqual(['instance pmox-fra has no template for v1.36.1', 'instance pmox-txl has no template for v1.36.1']);
    expect(problems.find((p) => p.message.includes('pmox-txl'))!.fix).toContain('template.versions');
  });

  it('reports a wrongly written Kubernetes version', () => {
    const p = only(exampleWith((l) => (l.tenants[0].kubernetesVersion = '1.30')));
    expect(p.message).toContain('v1.35.4');
  });

  it('reports each tab-indented line once, and nothing the parser misreads after it (issue 43: one tab gave six errors)', () => {
    const lines = exampleText.split('\n');
    const at = [lines.findIndex((l) => l === '        replicas: 3'), lines.findIndex((l) => l === '    cni: calico')];
    for (const i of at) lines[i] = lines[i].replace(/^ +/, '\t');
    const problems = problemsOf(lines.join('\n'));
    expect(problems.map((p) => [p.line, p.column, p.message])).toEqual(
      at.map((i) => [i + 1, 1, `YAML syntax: line ${i + 1} is indented with a tab; YAML indents with spaces only`]),
    );
    expect(problems.every((p) => p.fix === `replace the tab at the start of line ${p.line} with spaces`)).toBe(true);
  });

  it('reports YAML syntax errors with their line', () => {
    const problems = problemsOf('proxmox:\n  instances: [\n');
    expect(problems[0].message).toMatch(/^YAML syntax/);
    expect(problems[0].line).toBeGreaterThanOrEqual(2);
  });

  it('reports every problem at once, in file order, in one message with file:line and fixes', () => {
    const text = exampleWith((l) => {
      l.proxmox.instances[0].nodes[0].cpu = 'many';
      l.tenants[2].pools[0].size.memoryMiB = 1001;
      l.management.loadBalancer.addresses = ['10.4.0.300-10.4.0.1'];
    });
    let message = '';
    try {
      parseLab(text, 'my-lab.yaml');
    } catch (e) {
      message = (e as Error).message;
      const lines = (e as ProblemError).problems.map((p) => p.line ?? 0);
      expect(lines).toEqual([...lines].sort((a, b) => a - b));
    }
    expect(message).toMatch(/^my-lab\.yaml: 3 problems/);
    expect(message).toMatch(/my-lab\.yaml:\d+:\d+ {2}proxmox\.instances\[0\]\.nodes\[0\]\.cpu/);
    expect(message).toContain('tenants[2].pools[0].size.memoryMiB');
    expect(message).toContain('management.loadBalancer.addresses[0]');
    expect(message).toContain('fix:');
    expect(message).not.toMatch(/\n\s+at /);
  });

  it('runs the cross-field rules even when the schema fails elsewhere', () => {
    const problems = problemsOf(
      exampleWith((l) => {
        l.proxmox.instances[1].nodes[0].memoryMiB = 'lots';
        l.tenants[0].pools[0].instance = 'pmox-frx';
        l.tenants[2].name = 'tenant-a';
        l.tenants[1].pools[0].size.diskGiB = 1;
      }),
    );
    expect(problems.map((p) => formatPath(p.path)).sort()).toEqual([
      'proxmox.instances[1].nodes[0].memoryMiB',
      'tenants[0].pools[0].instance',
      'tenants[1].pools[0].size.diskGiB',
      'tenants[2].name',
    ]);
  });

  it('refuses several templates for one version where CAPMOX selects templates by tag (shared disks)', () => {
    const p = only(
      exampleWith((l) => {
        l.proxmox.instances[1].storage = { disksShared: true };
        l.proxmox.instances[1].images[0].nodes = ['pmox-fra-1', 'pmox-fra-2'];
      }),
    );
    expect(formatPath(p.path)).toBe('proxmox.instances[1].images[0].nodes');
    expect(p.message).toContain('templateSelector needs exactly one template');
  });

  it('reports a key given twice, with its line', () => {
    const problems = problemsOf(exampleText.replace('  reserve: { cpu: 2, memoryMiB: 8192 }', '  reserve: { cpu: 2, memoryMiB: 8192 }\n  reserve: { cpu: 4 }'));
    expect(problems[0].message).toMatch(/^YAML syntax: .*(unique|duplicate)/i);
    expect(problems[0].line).toBe(exampleText.split('\n').findIndex((l) => l.startsWith('  reserve:')) + 2);
  });

  it('reads YAML 1.2: a date-like or yes/no value stays what the schema expects', () => {
    const p = only(exampleWith((l) => (l.proxmox.instances[0].insecure = 'yes')).replace("insecure: 'yes'", 'insecure: yes'));
    expect(formatPath(p.path)).toBe('proxmox.instances[0].insecure');
    expect(p.value).toBe('yes');
  });

  it('reports two image versions that would share template VM ids, at the range', () => {
    const p = only(
      exampleWith((l) => {
        l.proxmox.instances[1].images.push({ ...l.proxmox.instances[1].images[0], kubernetesVersion: 'v1.35.0' });
        l.proxmox.instances[1].template.templateSelector.matchTags = ['capi'];
      }),
    );
    expect(formatPath(p.path)).toBe('proxmox.instances[1].vmIdRange');
    expect(p.message).toContain('images v1.35.0 and v1.35.4 would share template VM ids');
    expect(p.fix).toMatch(/^drop one of them, or widen vmIdRange/);
    expect(p.line).toBeGreaterThan(1);
  });

  it('names a missing file', () => {
    expect(() => loadLabFile('/nonexistent/lab.yaml')).toThrow(/no such file/);
  });
});

describe('the editor JSON Schema', () => {
  it('is committed and current (regenerate with npm run json-schema)', () => {
    expect(readFileSync(join(root, 'schema/lab.schema.json'), 'utf8')).toBe(labJsonSchema());
  });
});
