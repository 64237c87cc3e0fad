/**
 * Worker tasks by UPID (`/nodes/{node}/tasks/...`).
 */
import { fail } from '../errors';
import type { SimulatedInstance } from '../instance';
import { int, type AddRoute } from './router';

function task(inst: SimulatedInstance, authid: string, node: string, upid: string) {
  inst.node(node);
  const t = inst.tasks.get(upid);
  if (!t || t.node !== node) fail(`unable to open file '/var/log/pve/tasks/active' - No such file or directory (no task ${upid})`);
  if (t.user !== authid && t.user.split('!')[0] !== authid.split('!')[0]) inst.require(authid, `/nodes/${node}`, ['Sys.Audit']);
  return t;
}

function taskJson(t: ReturnType<typeof task>) {
  return {
    upid: t.upid,
    node: t.node,
    pid: t.pid,
    pstart: t.pstart,
    starttime: t.starttime,
    type: t.type,
    id: t.id,
    user: t.user.split('!')[0],
    ...(t.user.includes('!') ? { tokenid: t.user.split('!')[1] } : {}),
    status: t.status,
    ...(t.status === 'stopped' ? { exitstatus: t.exitstatus, endtime: t.endtime } : {}),
  };
}

export function registerTasks(route: AddRoute): void {
  route('GET', '/nodes/{node}/tasks', ({ inst, authid, at }) => {
    inst.node(at.node);
    const all = inst.can(authid, `/nodes/${at.node}`, ['Sys.Audit']);
    return [...inst.tasks.values()]
      .filter((t) => t.node === at.node && (all || t.user.split('!')[0] === authid.split('!')[0]))
      .sort((a, b) => b.starttime - a.starttime || b.pid - a.pid)
      .map((t) => {
        const { status, exitstatus, ...rest } = taskJson(t);
        return { ...rest, ...(status === 'stopped' ? { status: exitstatus } : {}) };
      });
  });

  route('GET', '/nodes/{node}/tasks/{upid}', ({ inst, authid, at }) => {
    task(inst, authid, at.node, at.upid);
    return [{ subdir: 'log' }, { subdir: 'status' }];
  });

  route('GET', '/nodes/{node}/tasks/{upid}/status', ({ inst, authid, at }) => taskJson(task(inst, authid, at.node, at.upid)));

  route('GET', '/nodes/{node}/tasks/{upid}/log', ({ inst, authid, at, params }) => {
    const t = task(inst, authid, at.node, at.upid);
    const start = int(params, 'start', { min: 0 }) ?? 0;
    const limit = int(params, 'limit', { min: 0 }) ?? 50;
    return t.log.slice(start, start + limit).map((line, i) => ({ n: start + i + 1, t: line }));
  });

  route('DELETE', '/nodes/{node}/tasks/{upid}', ({ inst, authid, at }) => {
    const t = task(inst, authid, at.node, at.upid);
    if (t.user.split('!')[0] !== authid.split('!')[0]) inst.require(authid, `/nodes/${at.node}`, ['Sys.Modify']);
    if (t.status === 'running') {
      if (t.timer) clearTimeout(t.timer);
      t.status = 'stopped';
      t.exitstatus = 'interrupted by signal';
      t.log.push('received interrupt', 'TASK ERROR: interrupted by signal');
      t.endtime = Math.floor(Date.now() / 1000);
    }
    return null;
  });
}
