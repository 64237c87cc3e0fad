/*
 * The no-outage watcher of the twin's surge/retire cases (test/twin/support.ts sampleReadyNodes),
 * run in a worker thread of its own: it follows watches, so it sees every state the API servers
 * went through, in their order, however busy the machine is (a poller sees only the states its
 * samples land on, and a starved poller sees fewer: the 2 s sampling bound failed at load 10-14).
 *
 * - Ready Nodes per pool, from each tenant API server's Node watch alone: a Node counts for its pool
 *   while Ready is True and it is not cordoned, its pool read from the `node.cluster.x-k8s.io/pool`
 *   label CAPI copies from its Machine (cluster-api, the pinned core version,
 *   internal/controllers/machine/machine_controller_noderef.go reconcileNode: patchNode runs before
 *   the Machine's nodeRef and NodeHealthy are written, so the label is on the Node before anything
 *   can count the Machine Ready and scale an old one down). One stream per tenant, so its events
 *   arrive in the order the API server wrote them: the fewest Ready Nodes is taken after every event.
 * - Kubelet/control-plane skew, from the management API server's Machine and KamajiControlPlane
 *   watches: one etcd, so every object's resourceVersion is that etcd's revision, one order over both
 *   kinds; the two streams are merged by it when the watcher stops (two sockets may be read in either
 *   order by a busy thread, the revisions cannot be).
 *
 * - The tenant API server answering, from a request to its Service's address every second (a new
 *   connection each, as a client that connects after the switch would): each answer's `/version`
 *   gitVersion in order (its changes kept), and every second it did not answer.
 *
 * A watch that ends is resumed from the last resourceVersion it delivered; one the server can no
 * longer resume (410 Gone) is listed again. For a tenant's Nodes the gap is bridged from below
 * (`bridgeGap`: the Nodes Ready through it count, reported in `bridged`); any other such gap is
 * reported in `lost` (states in it were not seen): the cases require none.
 */
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const https = require('node:https');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const POOL = 'node.cluster.x-k8s.io/pool';
const agent = (dir) =>
  new https.Agent({
    ca: readFileSync(join(dir, 'ca.crt')),
    cert: readFileSync(join(dir, 'admin.crt')),
    key: readFileSync(join(dir, 'admin.key')),
    keepAlive: true,
  });
const requests = new Set();

function list(url, ag, path) {
  return new Promise((resolve) => {
    const req = https.request(new URL(path, url), { agent: ag, headers: { Accept: 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        requests.delete(req);
        try {
          resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch {
          resolve({ status: res.statusCode || 0 });
        }
      });
    });
    requests.add(req);
    req.on('error', (e) => {
      requests.delete(req);
      resolve({ status: 0, error: e.message });
    });
    req.end();
  });
}

/** A watch from `rv`: `onEvent(type, object)` per event (newline-delimited JSON); resolves when the stream ends. */
function watchOnce(url, ag, path, rv, onEvent) {
  const sep = path.includes('?') ? '&' : '?';
  const full = `${path}${sep}watch=1&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion=${encodeURIComponent(rv)}`;
  return new Promise((resolve) => {
    const req = https.request(new URL(full, url), { agent: ag, headers: { Accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          requests.delete(req);
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8').slice(0, 300) });
        });
        return;
      }
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffered += chunk;
        let nl;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.trim()) onEvent(JSON.parse(line));
        }
      });
      res.on('end', () => {
        requests.delete(req);
        resolve({ status: 200 });
      });
      res.on('error', () => {
        requests.delete(req);
        resolve({ status: 0 });
      });
    });
    requests.add(req);
    req.on('error', (e) => {
      requests.delete(req);
      resolve({ status: 0, text: e.message });
    });
    req.end();
  });
}

const { mgmt, tenants } = workerData;
const result = { events: 0, lost: [], bridged: [], pools: {}, skew: [], notes: [], retries: 0, api: {} };
for (const t of tenants) result.api[t.name] = { samples: 0, versions: [], failures: [] };
for (const t of tenants) for (const [pool, n] of Object.entries(t.pools)) result.pools[`${t.name}/${pool}`] = { min: Infinity, replicas: n };
let phase = 'start';
let stopped = false;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * List, then watch from the list's resourceVersion until stopped. `reset(items)` after each list,
 * `event(type, object)` after each watch event. Resolves once the first list is in.
 */
async function follow(name, url, ag, path, reset, event, bridge) {
  let rv;
  let listed = false;
  // The end of the last watch stream that delivered everything up to its end: after a 410, the states
  // from then to the new list are the ones not seen.
  let seenUntil = Date.now();
  const relist = async (gapSince) => {
    for (;;) {
      const r = await list(url, ag, path);
      if (r.status === 200) {
        rv = r.body.metadata.resourceVersion;
        if (gapSince !== undefined && bridge && bridge(r.body.items, gapSince)) {
          result.bridged.push(`${phase}: ${name}: the watch could not resume from resourceVersion ${rv} (410 Gone): listed again, the gap bridged`);
          seenUntil = Date.now();
          return true;
        }
        reset(r.body.items);
        seenUntil = Date.now();
        return false;
      }
      if (stopped) return;
      result.retries++;
      await sleep(200);
    }
  };
  await relist();
  listed = true;
  void (async () => {
    while (!stopped) {
      let gone = false;
      const r = await watchOnce(url, ag, path, rv, (e) => {
        if (e.type === 'BOOKMARK') {
          rv = e.object.metadata.resourceVersion;
        } else if (e.type === 'ERROR') {
          if (e.object && e.object.code === 410) gone = true;
          else result.notes.push(`${phase}: ${name}: watch error ${JSON.stringify(e.object).slice(0, 200)}`);
        } else {
          rv = e.object.metadata.resourceVersion;
          event(e.type, e.object);
        }
      });
      if (stopped) break;
      if (gone || r.status === 410) {
        const from = rv;
        if (!(await relist(seenUntil))) result.lost.push(`${phase}: ${name}: the watch could not resume from resourceVersion ${from} (410 Gone): listed again`);
      } else if (r.status === 200) {
        seenUntil = Date.now();
      } else {
        result.retries++;
        await sleep(200);
      }
    }
  })();
  return listed;
}

const ready = (n) => !(n.spec && n.spec.unschedulable) && ((n.status && n.status.conditions) || []).some((c) => c.type === 'Ready' && c.status === 'True');

// Skew: the management API server's events of both kinds, each with its revision and the phase it arrived in.
const mgmtEvents = [];
const newer = (a, b) => {
  const x = a.replace(/^v/, '').split('.').map(Number);
  const y = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};

async function start() {
  const mgmtAgent = agent(mgmt.dir);
  let order = 0;
  const record = (tenant, kind, type, o) => mgmtEvents.push({ tenant, kind, type, o, rv: Number(o.metadata.resourceVersion), order: order++, phase });
  await Promise.all(
    tenants.map(async (t) => {
      const nodes = new Map();
      const evaluate = () => {
        result.events++;
        const counts = {};
        for (const n of nodes.values()) if (n.ready && n.pool) counts[n.pool] = (counts[n.pool] || 0) + 1;
        for (const pool of Object.keys(t.pools)) {
          const e = result.pools[`${t.name}/${pool}`];
          const n = counts[pool] || 0;
          if (n < e.min) {
            e.min = n;
            e.at = phase;
            if (n < e.replicas) result.notes.push(`${phase}: ${t.name}/${pool} has ${n} Ready Nodes`);
          }
        }
      };
      const keep = (n) => nodes.set(n.metadata.name, { pool: (n.metadata.labels || {})[POOL], ready: ready(n), uid: n.metadata.uid });
      // After a watch that could not resume (a new API server's watch cache starts at the current
      // revision: an older resourceVersion is 410 Gone, as after Kamaji's rollout), the states between
      // the last stream's end (`since`) and the new list were not seen. They are bounded from below by
      // the Nodes that were Ready through all of it: the same object (uid) Ready and not cordoned
      // before and in the list, its Ready condition's lastTransitionTime (whole seconds: the kubelet's
      // setters.go keeps it while the status holds) before the second `since` falls in. Each pool's
      // count of those is taken as its fewest in the gap; the list then replaces the map. A Node cordoned
      // and uncordoned inside the gap would not be seen (nothing in the twin does that).
      const bridgeGap = (items, since) => {
        const sinceSecond = Math.floor(since / 1000) * 1000;
        const through = {};
        for (const n of items) {
          const before = nodes.get(n.metadata.name);
          if (!before || !before.ready || before.uid !== n.metadata.uid || !ready(n) || !before.pool) continue;
          const c = ((n.status && n.status.conditions) || []).find((x) => x.type === 'Ready');
          const at = Date.parse(c && c.lastTransitionTime);
          if (!(at < sinceSecond)) continue;
          through[before.pool] = (through[before.pool] || 0) + 1;
        }
        result.events++;
        for (const pool of Object.keys(t.pools)) {
          const e = result.pools[`${t.name}/${pool}`];
          const n = through[pool] || 0;
          if (n < e.min) {
            e.min = n;
            e.at = `${phase} (a watch gap, bounded by the Nodes Ready through it)`;
            if (n < e.replicas) result.notes.push(`${phase}: ${t.name}/${pool} has at least ${n} Ready Nodes through a watch gap`);
          }
        }
        nodes.clear();
        for (const n of items) keep(n);
        evaluate();
        return true;
      };
      await Promise.all([
        follow(
          `${t.name} Nodes`,
          t.url,
          agent(t.dir),
          '/api/v1/nodes',
          (items) => {
            nodes.clear();
            for (const n of items) keep(n);
            evaluate();
          },
          (type, n) => {
            if (type === 'DELETED') nodes.delete(n.metadata.name);
            else keep(n);
            evaluate();
          },
          bridgeGap,
        ),
        follow(
          `${t.name} Machines`,
          mgmt.url,
          mgmtAgent,
          `/apis/cluster.x-k8s.io/v1beta2/namespaces/${t.name}/machines`,
          (items) => items.forEach((m) => record(t.name, 'Machine', 'LISTED', m)),
          (type, m) => record(t.name, 'Machine', type, m),
        ),
        follow(
          `${t.name} KamajiControlPlanes`,
          mgmt.url,
          mgmtAgent,
          `/apis/controlplane.cluster.x-k8s.io/v1alpha2/namespaces/${t.name}/kamajicontrolplanes`,
          (items) => items.forEach((k) => record(t.name, 'KamajiControlPlane', 'LISTED', k)),
          (type, k) => record(t.name, 'KamajiControlPlane', type, k),
        ),
      ]);
    }),
  );
  for (const t of tenants) void askEverySecond(t);
  parentPort.postMessage({ started: true });
}

/** The tenant API server's `/version` every second, on a new connection each time. */
async function askEverySecond(t) {
  const tls = { ca: readFileSync(join(t.dir, 'ca.crt')), cert: readFileSync(join(t.dir, 'admin.crt')), key: readFileSync(join(t.dir, 'admin.key')) };
  const api = result.api[t.name];
  while (!stopped) {
    const at = Date.now();
    const ag = new https.Agent({ ...tls, keepAlive: false });
    const r = await list(t.url, ag, '/version');
    ag.destroy();
    if (stopped) break;
    api.samples++;
    if (r.status === 200 && r.body && r.body.gitVersion) {
      if (api.versions[api.versions.length - 1] !== r.body.gitVersion) api.versions.push(r.body.gitVersion);
    } else if (api.failures.length < 50) api.failures.push(`${phase}: ${new Date().toISOString()}: ${r.status ? `HTTP ${r.status}` : r.error}`);
    await sleep(Math.max(0, 1000 - (Date.now() - at)));
  }
}

/** Replays the management events in revision order: every moment a Machine with a Node ran a version newer than its control plane. */
function skew() {
  const sorted = [...mgmtEvents].sort((a, b) => a.rv - b.rv || a.order - b.order);
  for (const t of tenants) {
    const machines = new Map();
    const planes = new Map();
    const cp = () => {
      const own = planes.get(t.name);
      return own !== undefined ? own : [...planes.values()][0];
    };
    for (const e of sorted) {
      if (e.tenant !== t.name) continue;
      const store = e.kind === 'Machine' ? machines : planes;
      if (e.type === 'DELETED') store.delete(e.o.metadata.name);
      else if (e.kind === 'Machine') store.set(e.o.metadata.name, e.o);
      else store.set(e.o.metadata.name, e.o.status && e.o.status.version);
      const version = cp();
      if (!version) continue;
      for (const m of machines.values()) {
        const node = m.status && m.status.nodeRef && m.status.nodeRef.name;
        if (node && m.spec.version && newer(m.spec.version, version)) {
          const line = `${e.phase}: ${t.name} Node ${node} (${m.metadata.name}) runs ${m.spec.version}, the control plane ${version}`;
          if (result.skew[result.skew.length - 1] !== line && result.skew.length < 50) result.skew.push(line);
        }
      }
    }
  }
}

parentPort.on('message', (m) => {
  if (m.phase) phase = m.phase;
  if (m.stop) {
    stopped = true;
    for (const req of requests) req.destroy();
    skew();
    parentPort.postMessage(result);
  }
});
start().catch((e) => parentPort.postMessage({ error: e.stack || String(e) }));
