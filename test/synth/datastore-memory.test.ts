/**
 * The datastore memory (modules/management/datastore.ts, "Memory"): the next synth into an output
 * refuses a `management.datastore` whose CSI or StorageClass differs from what the last synth gave
 * kamaji-etcd (its StatefulSet's volumeClaimTemplates cannot change), naming the lab file, the
 * path and the fix, before writing anything; the same description into a fresh output, or with the
 * old CSI pinned, passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileProject, projectRoot } from '../support/toolchain';

const work = mkdtempSync(join(projectRoot, '.test-datastore-memory-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => compileProject());

const example = readFileSync(join(projectRoot, 'examples/lab.yaml'), 'utf8');
const DATASTORE = 'datastore: { size: 10Gi }';
expect(example).toContain(DATASTORE);
function labWith(name: string, datastore: string, extra = ''): string {
  const file = join(work, name);
  writeFileSync(file, example.replace(DATASTORE, `${datastore}${extra}`));
  return relative(projectRoot, file);
}
function run(...args: string[]) {
  return spawnSync(process.execPath, ['dist/scripts/synth.js', ...args], { cwd: projectRoot, encoding: 'utf8' });
}
const managementStack = (out: string) => readFileSync(join(projectRoot, out, 'stacks', 'management', 'cdk.tf.json'), 'utf8');

describe('the datastore memory of a synth output', () => {
  const out = relative(projectRoot, join(work, 'out'));
  const localPath = labWith('local-path.yaml', 'datastore: { size: 10Gi, csi: local-path }', '\n  mirror: { charts: oci://registry.lab.example/charts }');

  it('refuses to move a deployed datastore to local-path, with the file, both paths and the fix, and writes nothing', () => {
    expect(run('--config', 'examples/lab.yaml', '--out', out).status).toBe(0);
    const before = managementStack(out);
    const r = run('--config', localPath, '--out', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(localPath);
    expect(r.stderr).toMatch(/management\.datastore\.csi[^\n]*deployed with csi openebs-localpv/);
    expect(r.stderr).toMatch(/management\.datastore\.storageClass[^\n]*StorageClass openebs-hostpath/);
    expect(r.stderr).toContain('keep csi: openebs-localpv, storageClass: openebs-hostpath');
    expect(managementStack(out)).toBe(before);
  });

  it('refuses a renamed class alone, and passes the unchanged datastore written out in full', () => {
    const renamed = labWith('renamed.yaml', 'datastore: { size: 10Gi, storageClass: etcd-local }');
    const r = run('--config', renamed, '--out', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/management\.datastore\.storageClass/);
    expect(r.stderr).not.toMatch(/management\.datastore\.csi/);
    const pinned = labWith('pinned.yaml', 'datastore: { size: 10Gi, csi: openebs-localpv, storageClass: openebs-hostpath }');
    expect(run('--config', pinned, '--out', out).status).toBe(0);
  });

  it('lets a new output take local-path', () => {
    const fresh = relative(projectRoot, join(work, 'fresh'));
    const r = run('--config', localPath, '--out', fresh);
    expect(r.stderr).not.toContain('problem');
    expect(r.status).toBe(0);
    expect(managementStack(fresh)).toContain('local-path-provisioner');
  });
});

describe('validate keeps the datastore the same way', () => {
  const out = relative(projectRoot, join(work, 'validate-out'));
  const validate = (...args: string[]) => spawnSync(process.execPath, ['dist/scripts/validate.js', ...args], { cwd: projectRoot, encoding: 'utf8' });

  it('with --out <synth output> and with --against <old lab>, and says nothing without either', () => {
    const renamed = labWith('renamed-v.yaml', 'datastore: { size: 10Gi, storageClass: etcd-local }');
    expect(run('--config', 'examples/lab.yaml', '--out', out).status).toBe(0);
    for (const args of [
      ['--out', out],
      ['--against', 'examples/lab.yaml'],
    ]) {
      const r = validate('--config', renamed, ...args);
      expect({ args, status: r.status }).toEqual({ args, status: 1 });
      expect(r.stderr).toMatch(/management\.datastore\.storageClass: the datastore's volumes use StorageClass openebs-hostpath/);
    }
    expect(validate('--config', renamed).status).toBe(0);
  });
});
