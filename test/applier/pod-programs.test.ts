/**
 * The played Job's programs must start as the pod's runAsUser wherever the checkout is: a program
 * under a directory others cannot enter (a clone in `mktemp -d`, mode 0700) is copied into the
 * pod's own bin; one others can reach (the machine-wide tool cache, through the checkout's symlink)
 * is run where it is.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reachable } from '../../twin/jobs';

const work = mkdtempSync(join(tmpdir(), 'pvekaas-pod-programs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function layout(name: string, privateMode: number) {
  const root = join(work, name);
  const cache = join(root, 'cache');
  const checkout = join(root, 'checkout');
  const bin = join(root, 'pod-bin');
  mkdirSync(join(cache, 'tool'), { recursive: true });
  mkdirSync(join(checkout, '.toolchain/bin'), { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(cache, 'tool', 'etcdctl'), '#!/bin/sh\necho etcdctl\n', { mode: 0o755 });
  symlinkSync(join(cache, 'tool', 'etcdctl'), join(checkout, '.toolchain/bin/etcdctl'));
  chmodSync(work, 0o755);
  chmodSync(root, 0o755);
  chmodSync(checkout, privateMode);
  return { cache, checkout, bin };
}

describe("the pod's programs", () => {
  it('runs a program others can reach where it is (the tool cache behind the checkout’s symlink), even from a private checkout', () => {
    const { cache, checkout, bin } = layout('open-cache', 0o700);
    expect(reachable(join(checkout, '.toolchain/bin/etcdctl'), bin)).toBe(join(cache, 'tool', 'etcdctl'));
  });

  it('copies a program others cannot reach into the pod’s bin, runnable by anyone', () => {
    const { cache, bin } = layout('private-cache', 0o755);
    chmodSync(cache, 0o700);
    const program = reachable(join(cache, 'tool', 'etcdctl'), bin);
    expect(program).toBe(join(bin, 'etcdctl'));
    expect(statSync(program).mode & 0o777).toBe(0o755);
    expect(readFileSync(program, 'utf8')).toContain('echo etcdctl');
  });
});
