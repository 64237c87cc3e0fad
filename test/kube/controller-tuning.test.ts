/**
 * The controllers' concurrency and client rate limits the management stack renders
 * (modules/management/chart-values.ts `CAPI_1_12_TUNING`): on Cluster API 1.12 the defaults 1.13
 * ships, on 1.13 nothing. The real operator chart passes the provider's `deployment` through, the
 * operator turns its container args into manager flags (twin/controllers.ts `managerArgs`),
 * and the REAL controller binaries of the toolchain (the default core's build, and the previous minor's in the providers' graph)
 * must know every flag: an unknown one stops the manager at start, so the provider would never come up.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CAPI_1_12_TUNING, CORE_SYNC_ARGS, capiOperatorValues, capiProviderResources } from '../../modules/management/chart-values';
import { capiCoreBuild, capiPreviousLane, controllerModules, pinnedVersions } from '../../modules/versions';
import { controllerBuilds, deployedProviders, managerArgs, operatorChanges, type ControllerName } from '../../twin/controllers';
import { renderedOperatorValues } from '../../twin/operator-chart';
import toolchain from '../../modules/versions/toolchain.json';
import { stringify } from 'yaml';
import { exampleLab } from '../management/synth';

const root = join(__dirname, '../..');
/** The previous CAPI minor (1.12, which the tuning is for) and the default (1.13, whose defaults it is). */
const OLD = capiPreviousLane()!.version;
const NEW = pinnedVersions.clusterApi;
const settings = (clusterApi: string) => ({ management: exampleLab().management, versions: { ...pinnedVersions, clusterApi } });
const builds = controllerBuilds(root, controllerModules(), capiCoreBuild());

/** A controller binary's own `--help` (pflag prints the usage and exits 0). */
function helpOf(bin: string): string {
  const r = spawnSync(bin, ['--help'], { encoding: 'utf8', timeout: 60000 });
  return `${r.stdout}\n${r.stderr}`;
}

/** The long flags a controller binary defines. */
function flagsOf(bin: string): Set<string> {
  return new Set([...helpOf(bin).matchAll(/^\s+(?:-\w, )?(--[a-z0-9-]+)/gm)].map((m) => m[1]));
}

function binFor(name: ControllerName, version: string): string {
  const build = builds[name].find((b) => b.version === version);
  if (!build) throw new Error(`no build of ${name} ${version}: ${builds[name].map((b) => b.version).join(', ')}`);
  return build.bin;
}

describe('the controller tuning the management stack renders', () => {
  it('sets 1.13’s defaults on Cluster API 1.12 (the previous minor), for core and kubeadm bootstrap only', () => {
    expect(OLD).toMatch(/^v1\.12\./);
    const resources = capiProviderResources(settings(OLD));
    const spec = (name: string) => resources.find((r) => r.metadata.name === name)!.spec as any;
    expect(spec('cluster-api').manager).toEqual({ featureGates: { ClusterTopology: true } });
    expect(spec('cluster-api').deployment).toEqual({ containers: [{ name: 'manager', args: { ...CAPI_1_12_TUNING.core, ...CORE_SYNC_ARGS } }] });
    expect(spec('kubeadm').manager).toBeUndefined();
    expect(spec('kubeadm').deployment).toEqual({ containers: [{ name: 'manager', args: CAPI_1_12_TUNING.bootstrap }] });
    for (const r of resources.filter((x) => !['cluster-api', 'kubeadm'].includes(x.metadata.name))) expect((r.spec as any).deployment).toBeUndefined();
  });

  it('sets none of them on Cluster API 1.13 (the default), whose own defaults these are: the core gets only the topology labels sync', () => {
    const resources = capiProviderResources(settings(NEW));
    expect(resources.find((r) => r.metadata.name === 'cluster-api')!.spec!.manager).toEqual({ featureGates: { ClusterTopology: true } });
    expect((resources.find((r) => r.metadata.name === 'cluster-api')!.spec as any).deployment).toEqual({
      containers: [{ name: 'manager', args: CORE_SYNC_ARGS }],
    });
    for (const r of resources.filter((x) => x.metadata.name !== 'cluster-api')) expect((r.spec as any).deployment).toBeUndefined();
  });

  /** The provider resources the REAL operator chart renders from these values (what the twin's controllers run with). */
  const rendered = (values: Record<string, unknown>) =>
    deployedProviders(
      renderedOperatorValues(
        root,
        { name: 'cluster-api-operator', namespace: 'capi-operator-system', version: pinnedVersions.clusterApiOperator, values: [stringify(values)] },
        toolchain.kubernetes.version,
      ),
    );

  it('reaches the managers through the real operator chart, as the operator adds them', () => {
    const deployed = rendered(capiOperatorValues(settings(OLD)));
    expect(deployed['capi-manager'].args).toEqual(
      Object.entries({ ...CAPI_1_12_TUNING.core, ...CORE_SYNC_ARGS })
        .map(([k, v]) => `${k}=${v}`)
        .sort(),
    );
    expect(deployed['capi-manager'].featureGates).toEqual({ ClusterTopology: true });
    expect(deployed['kubeadm-bootstrap-manager'].args).toEqual(['--kube-api-burst=200', '--kube-api-qps=100', '--kubeadmconfig-concurrency=100']);
    expect(deployed['capmox-manager'].args).toEqual([]);
  });

  it('a flag put in manager.additionalArgs never reaches the manager: the chart drops it', () => {
    // The first rendering of this tuning did that; the twin, reading the values, ran the flags anyway.
    const values = capiOperatorValues(settings(OLD)) as any;
    delete values.core['cluster-api'].deployment;
    values.core['cluster-api'].manager.additionalArgs = CAPI_1_12_TUNING.core;
    const deployed = rendered(values);
    expect(deployed['capi-manager'].args).toEqual([]);
    expect(deployed['capi-manager'].featureGates).toEqual({ ClusterTopology: true });
  });

  it('fails, with helm’s own words, when the chart refuses the values or is not laid out', () => {
    // The chart's values.schema.json wants `core` to be an object (or null).
    expect(() => rendered({ ...capiOperatorValues(settings(OLD)), core: 'cluster-api' })).toThrow(
      /^helm template of the cluster-api-operator release: .*core/s,
    );
    expect(() => renderedOperatorValues(root, { name: 'x', namespace: 'x', version: '0.0.1', values: [] }, toolchain.kubernetes.version)).toThrow(
      /the cluster-api-operator chart 0\.0\.1 is not laid out in .*: run scripts\/toolchain install/,
    );
  });

  it('moving from 1.12 to 1.13 upgrades core and bootstrap (their flags go with it); a flag change alone rolls the manager', () => {
    const on = (clusterApi: string) => rendered(capiOperatorValues(settings(clusterApi)));
    const old = on(OLD);
    const versions = Object.fromEntries(Object.entries(old).map(([n, d]) => [n, d.version])) as Record<ControllerName, string>;
    const args = Object.fromEntries(Object.entries(old).map(([n, d]) => [n, d.args])) as Record<ControllerName, string[]>;
    expect(operatorChanges(old, versions, args)).toEqual({ moving: [], rolled: [] });
    const next = on(NEW);
    expect(next['capi-manager'].args).toEqual(['--additional-sync-machine-labels=^topology\\.kubernetes\\.io/(region|zone)$']);
    expect(operatorChanges(next, versions, args)).toEqual({ moving: ['capi-manager', 'kubeadm-bootstrap-manager'], rolled: [] });
    // The same release run with 1.12's default flags (a lab synthesized before this tuning): rolled.
    expect(operatorChanges(old, versions, { ...args, 'capi-manager': [], 'kubeadm-bootstrap-manager': [] })).toEqual({
      moving: [],
      rolled: ['capi-manager', 'kubeadm-bootstrap-manager'],
    });
  });

  it('translates the manager section as the operator does', () => {
    expect(managerArgs({ manager: { controller: { groupKindConcurrency: { Machine: 7 } }, syncPeriod: '1m30s', maxConcurrentReconciles: 3 } })).toEqual([
      '--machine-concurrency=7',
      '--max-concurrent-reconciles=3',
      '--sync-period=90s',
    ]);
    // Container args first; the manager section overrides them (customizeDeployment's order).
    expect(
      managerArgs({
        deployment: { containers: [{ name: 'manager', args: { '--machine-concurrency': '5' } }] },
        manager: { controller: { groupKindConcurrency: { Machine: 7 } } },
      }),
    ).toEqual(['--machine-concurrency=7']);
    // The operator refuses an additional arg whose key is already set (`arg %q already exists`).
    expect(() => managerArgs({ manager: { controller: { groupKindConcurrency: { Machine: 7 } }, additionalArgs: { '--machine-concurrency': '9' } } })).toThrow(
      /arg "--machine-concurrency" already exists/,
    );
  });

  it.each([
    ['capi-manager', 'core'],
    ['kubeadm-bootstrap-manager', 'bootstrap'],
  ] as const)('every flag rendered for %s is one its real 1.12 binary defines', (name, kind) => {
    const flags = flagsOf(binFor(name, OLD));
    expect(flags.size).toBeGreaterThan(10);
    for (const flag of Object.keys(CAPI_1_12_TUNING[kind])) expect([flag, flags.has(flag)]).toEqual([flag, true]);
  });

  it.each([OLD, NEW])('the topology labels sync flag is one the real %s core binary defines, and selects those two labels only', (version) => {
    const bin = binFor('capi-manager', version);
    for (const flag of Object.keys(CORE_SYNC_ARGS)) expect([flag, flagsOf(bin).has(flag)]).toEqual([flag, true]);
    // The manager compiles the expressions (Go's RE2) once connected, and stops on a bad one (main.go:
    // "at least one of --additional-sync-machine-labels regexes is invalid"): the lab twin's core
    // manager runs with it and its Nodes carry the labels (test/twin/example-lab.test.ts). Here: what
    // it selects, in the syntax RE2 and JavaScript share (no lookaround, which RE2 lacks).
    const re = CORE_SYNC_ARGS['--additional-sync-machine-labels'];
    expect(re).not.toMatch(/\(\?[=!<]/);
    const selects = (key: string) => new RegExp(re).test(key);
    expect(['topology.kubernetes.io/region', 'topology.kubernetes.io/zone'].map(selects)).toEqual([true, true]);
    expect(
      ['topology.kubernetes.io/regionX', 'xtopology.kubernetes.io/zone', 'node.kubernetes.io/instance-type', 'kubernetes.io/hostname'].map(selects),
    ).toEqual([false, false, false, false]);
  });

  it('catches a flag the release does not define: 1.13 dropped kubeadm bootstrap’s --cluster-concurrency', () => {
    // 1.12 still parses it (deprecated, a no-op); 1.13 stops at start on it. Rendering a flag set
    // for the wrong release would keep that provider down; the real binaries show it.
    const run = (version: string) =>
      spawnSync(binFor('kubeadm-bootstrap-manager', version), ['--cluster-concurrency=10', '--help'], { encoding: 'utf8', timeout: 60000 });
    const old = run(OLD);
    expect(old.status).toBe(0);
    expect(`${old.stdout}${old.stderr}`).toMatch(/Flag --cluster-concurrency has been deprecated/);
    const next = run(NEW);
    expect(next.status).not.toBe(0);
    expect(`${next.stdout}${next.stderr}`).toMatch(/unknown flag: --cluster-concurrency/);
  });

  it('the 1.13 defaults equal what is rendered on 1.12', () => {
    // pflag prints each default in --help ("(default 100)"): the tuning is exactly upstream's next minor.
    const help = (name: ControllerName) => helpOf(binFor(name, NEW));
    for (const [name, kind] of [
      ['capi-manager', 'core'],
      ['kubeadm-bootstrap-manager', 'bootstrap'],
    ] as const) {
      const text = help(name);
      for (const [flag, value] of Object.entries(CAPI_1_12_TUNING[kind])) {
        const line = text.split('\n').find((l) => new RegExp(`^\\s+${flag} `).test(l));
        expect([flag, line]).toEqual([flag, expect.stringContaining(`(default ${value})`)]);
      }
    }
  });
});
