/** The deploy scheduler: dependency order, parallel where allowed, stop at the first failure, and what was and was not applied. */
import { runInOrder, stackGlob, type StackOutcome } from '../../scripts/lib/deploy-run';

const lab = ['proxmox-a', 'proxmox-b', 'management', 'management-config', 'tenant-x', 'tenant-y'];
const dependencies = {
  management: ['proxmox-a', 'proxmox-b'],
  'management-config': ['management'],
  'tenant-x': ['management-config'],
  'tenant-y': ['management-config'],
};

/** A fake step that records when each stack starts and ends; `fail` stacks fail. */
function recorder(fail: string[] = [], ms = 20) {
  const log: string[] = [];
  let running = 0;
  let peak = 0;
  const run = async (stack: string): Promise<StackOutcome> => {
    log.push(`start ${stack}`);
    peak = Math.max(peak, ++running);
    await new Promise((r) => setTimeout(r, stack === 'proxmox-b' ? ms * 3 : ms));
    running--;
    log.push(`end ${stack}`);
    return fail.includes(stack) ? { ok: false, summary: 'Error: boom' } : { ok: true, summary: '1 added, 0 changed, 0 destroyed' };
  };
  return { log, run, peak: () => peak };
}

describe('deploy order', () => {
  it('starts a stack only after its dependencies, and runs independent ones in parallel', async () => {
    const r = recorder();
    const result = await runInOrder({ stacks: lab, dependencies, parallel: 2, run: r.run });
    const at = (e: string) => r.log.indexOf(e);
    expect(at('start management')).toBeGreaterThan(at('end proxmox-a'));
    expect(at('start management')).toBeGreaterThan(at('end proxmox-b'));
    expect(at('start management-config')).toBeGreaterThan(at('end management'));
    for (const t of ['tenant-x', 'tenant-y']) expect(at(`start ${t}`)).toBeGreaterThan(at('end management-config'));
    expect(at('start proxmox-b')).toBeLessThan(at('end proxmox-a')); // both instances at once
    expect(at('start tenant-y')).toBeLessThan(at('end tenant-x')); // both tenants at once
    expect(r.peak()).toBe(2);
    expect(result.applied.map((a) => a.stack).sort()).toEqual([...lab].sort());
    expect(result.failed).toBeUndefined();
    expect(result.notApplied).toEqual([]);
  });

  it('never runs more than --parallel at once', async () => {
    const r = recorder();
    await runInOrder({ stacks: lab, dependencies, parallel: 1, run: r.run });
    expect(r.peak()).toBe(1);
  });

  it('stops at the first failure: running stacks finish, nothing else starts, and says why', async () => {
    const r = recorder(['proxmox-a']);
    const result = await runInOrder({ stacks: lab, dependencies, parallel: 2, run: r.run });
    expect(result.failed).toEqual({ stack: 'proxmox-a', summary: 'Error: boom' });
    expect(result.applied.map((a) => a.stack)).toEqual(['proxmox-b']); // already running, finished
    expect(result.notApplied).toEqual([
      { stack: 'management', why: 'depends on proxmox-a, which failed' },
      { stack: 'management-config', why: 'not started: stopped after proxmox-a failed' },
      { stack: 'tenant-x', why: 'not started: stopped after proxmox-a failed' },
      { stack: 'tenant-y', why: 'not started: stopped after proxmox-a failed' },
    ]);
    expect(r.log.filter((l) => l.startsWith('start'))).toEqual(['start proxmox-a', 'start proxmox-b']);
  });

  it('takes dependencies outside the selection as applied', async () => {
    const r = recorder();
    const result = await runInOrder({ stacks: ['tenant-y', 'tenant-x'], dependencies, parallel: 2, run: r.run });
    expect(result.applied.map((a) => a.stack).sort()).toEqual(['tenant-x', 'tenant-y']);
  });

  it('selects stacks by comma-separated globs', () => {
    const match = stackGlob('proxmox-*,tenant-x');
    expect(lab.filter(match)).toEqual(['proxmox-a', 'proxmox-b', 'tenant-x']);
  });
});
