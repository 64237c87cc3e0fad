#!/usr/bin/env node
/*
 * SIMULATED in the lab twin: kubectl, for the scripts of the Jobs pvekaas renders (no container
 * runtime, and kubectl is not in the toolchain). It plays exactly the invocations those scripts make
 * and refuses any other, making the requests kubectl v1.34 makes for them, with the credentials of
 * $KUBECONFIG (a ServiceAccount token: the API server's real authentication and RBAC decide):
 *
 *   kubectl [-n NS] get RESOURCE[.GROUP] NAME -o 'jsonpath={.a.b\.c}'
 *       discovery (GET /api or /apis/GROUP), then GET of the object; prints the field (empty if absent)
 *   kubectl apply --server-side --force-conflicts --field-manager=NAME -f -
 *       each object on stdin (JSON, one or several): PATCH application/apply-patch+yaml, force=true
 *   kubectl [-n NS] patch RESOURCE[.GROUP] NAME --field-manager=NAME --type merge --patch-file /dev/stdin
 *       a JSON merge patch from stdin: PATCH application/merge-patch+json with fieldManager
 *   kubectl [-n NS] wait --for=condition=C|--for=jsonpath={.path}=VALUE --timeout=Ns RESOURCE[.GROUP]/NAME ...
 *       GET of each object until the condition is True / the field has the value, or the timeout
 *       (at most 10 s here: what the twin plays is there at once, or never)
 *
 * Errors as kubectl prints them ("Error from server (Forbidden): ..."), exit code 1.
 */
'use strict';
const https = require('node:https');
const { readFileSync } = require('node:fs');

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const config = JSON.parse(readFileSync(process.env.KUBECONFIG || fail('error: KUBECONFIG is not set'), 'utf8'));
const context = config.contexts.find((c) => c.name === config['current-context']).context;
const cluster = config.clusters.find((c) => c.name === context.cluster).cluster;
const user = config.users.find((u) => u.name === context.user).user;
const agent = new https.Agent({ ca: Buffer.from(cluster['certificate-authority-data'], 'base64') });

function request(method, path, body, contentType) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = https.request(
      new URL(path, cluster.server),
      {
        method,
        agent,
        headers: {
          Accept: 'application/json',
          Authorization: `Bearer ${user.token}`,
          'User-Agent': 'kubectl/v1.34 (lab twin)',
          ...(payload === undefined ? {} : { 'Content-Type': contentType || 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, body: json, text });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** kubectl's "Error from server (Reason): message". */
function serverError(r) {
  const reason = r.body && r.body.reason ? r.body.reason : `HTTP ${r.status}`;
  const message = r.body && r.body.message ? r.body.message : r.text;
  return fail(`Error from server (${reason}): ${message}`);
}

/** RESOURCE[.GROUP] (plural, singular or kind) → { base, resource, namespaced } through discovery. */
async function resolveResource(spec) {
  const [name, ...groupParts] = spec.split('.');
  const group = groupParts.join('.');
  let base;
  const matches = (r) =>
    !r.name.includes('/') && (r.name === name || r.singularName === name || r.kind.toLowerCase() === name || (r.shortNames || []).includes(name));
  if (!group) {
    const core = await request('GET', '/api');
    if (core.status !== 200) serverError(core);
    base = `/api/${core.body.versions[0]}`;
    const coreList = await request('GET', base);
    if (coreList.status !== 200) serverError(coreList);
    const inCore = coreList.body.resources.find(matches);
    if (inCore) return { base, resource: inCore.name, namespaced: inCore.namespaced };
    // Not a core resource: kubectl's RESTMapper looks through every group's preferred version.
    const groups = await request('GET', '/apis');
    if (groups.status !== 200) serverError(groups);
    for (const g of groups.body.groups) {
      const gv = `/apis/${g.preferredVersion.groupVersion}`;
      const l = await request('GET', gv);
      const found = l.status === 200 ? l.body.resources.find(matches) : undefined;
      if (found) return { base: gv, resource: found.name, namespaced: found.namespaced };
    }
    fail(`error: the server doesn't have a resource type "${spec}"`);
  } else {
    const g = await request('GET', `/apis/${group}`);
    if (g.status === 404) fail(`error: the server doesn't have a resource type "${spec}"`);
    if (g.status !== 200) serverError(g);
    // kubectl's RESTMapper: the group's preferred version first, then its other served versions
    // (KamajiControlPlane is served at v1alpha2 only, while the group prefers KubeadmControlPlane's v1beta2).
    const versions = [
      g.body.preferredVersion.groupVersion,
      ...g.body.versions.map((v) => v.groupVersion).filter((v) => v !== g.body.preferredVersion.groupVersion),
    ];
    for (const gv of versions) {
      const list = await request('GET', `/apis/${gv}`);
      if (list.status !== 200) serverError(list);
      const found = list.body.resources.find(matches);
      if (found) return { base: `/apis/${gv}`, resource: found.name, namespaced: found.namespaced };
    }
    fail(`error: the server doesn't have a resource type "${spec}"`);
  }
  const list = await request('GET', base);
  if (list.status !== 200) serverError(list);
  const found = list.body.resources.find(matches);
  if (!found) fail(`error: the server doesn't have a resource type "${spec}"`);
  return { base, resource: found.name, namespaced: found.namespaced };
}

function objectPath(r, namespace, name) {
  return r.namespaced ? `${r.base}/namespaces/${namespace}/${r.resource}/${encodeURIComponent(name)}` : `${r.base}/${r.resource}/${encodeURIComponent(name)}`;
}

/** A jsonpath of the form {.a.b\.c}: kubectl prints the value, or nothing when absent. */
function jsonpath(object, expression) {
  const m = /^\{\.(.*)\}$/.exec(expression);
  if (!m) fail(`error: the lab twin's kubectl plays only jsonpath={.field.path}, not ${expression}`);
  const keys = m[1].split(/(?<!\\)\./).map((k) => k.replace(/\\\./g, '.'));
  let v = object;
  for (const k of keys) v = v == null ? undefined : v[k];
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

async function main(argv) {
  let namespace = 'default';
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '-n' || argv[i] === '--namespace') namespace = argv[++i];
    else if (argv[i].startsWith('--namespace=')) namespace = argv[i].slice(12);
    else args.push(argv[i]);
  }
  const verb = args.shift();
  if (verb === 'get') {
    const [resource, name, ...rest] = args;
    let output;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '-o') output = rest[++i];
      else if (rest[i].startsWith('-o=')) output = rest[i].slice(3);
      else fail(`error: the lab twin's kubectl does not play "get ... ${rest[i]}"`);
    }
    if (!name || !output || !output.startsWith('jsonpath=')) fail('error: the lab twin\'s kubectl plays only "get RESOURCE NAME -o jsonpath=..."');
    const r = await resolveResource(resource);
    const got = await request('GET', objectPath(r, namespace, name));
    if (got.status !== 200) serverError(got);
    process.stdout.write(jsonpath(got.body, output.slice('jsonpath='.length)));
    return;
  }
  if (verb === 'apply') {
    const want = new Set(['--server-side', '--force-conflicts', '-f', '-']);
    let manager;
    for (const a of args) {
      if (a.startsWith('--field-manager=')) manager = a.slice(16);
      else if (!want.has(a)) fail(`error: the lab twin's kubectl does not play "apply ... ${a}"`);
    }
    for (const w of want)
      if (!args.includes(w)) fail(`error: the lab twin's kubectl plays only "apply --server-side --force-conflicts --field-manager=NAME -f -" (missing ${w})`);
    if (!manager) fail("error: the lab twin's kubectl needs --field-manager with --server-side");
    const input = readFileSync(0, 'utf8').trim();
    const objects = [];
    // One or more JSON objects, concatenated (what printf gives): parse them one after another.
    let rest = input;
    while (rest.length) {
      let depth = 0,
        inString = false,
        end = -1;
      for (let i = 0; i < rest.length; i++) {
        const ch = rest[i];
        if (inString) {
          if (ch === '\\') i++;
          else if (ch === '"') inString = false;
          continue;
        }
        if (ch === '"') inString = true;
        else if (ch === '{') depth++;
        else if (ch === '}' && --depth === 0) {
          end = i + 1;
          break;
        }
      }
      if (end < 0) fail("error: error parsing STDIN: the lab twin's kubectl reads JSON objects only");
      try {
        objects.push(JSON.parse(rest.slice(0, end)));
      } catch (e) {
        fail(`error: error parsing STDIN: ${e.message}`);
      }
      rest = rest.slice(end).trim();
    }
    for (const o of objects) {
      const [group] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : [''];
      const r = await resolveResource(group ? `${o.kind.toLowerCase()}.${group}` : o.kind.toLowerCase());
      const q = new URLSearchParams({ fieldManager: manager, force: 'true' });
      const res = await request('PATCH', `${objectPath(r, o.metadata.namespace || namespace, o.metadata.name)}?${q}`, o, 'application/apply-patch+yaml');
      if (res.status !== 200 && res.status !== 201) serverError(res);
      process.stdout.write(`${o.kind.toLowerCase()}/${o.metadata.name} serverside-applied\n`);
    }
    return;
  }
  if (verb === 'patch') {
    const [resource, name, ...rest] = args;
    let manager, type, file;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i].startsWith('--field-manager=')) manager = rest[i].slice(16);
      else if (rest[i] === '--type') type = rest[++i];
      else if (rest[i].startsWith('--type=')) type = rest[i].slice(7);
      else if (rest[i] === '--patch-file') file = rest[++i];
      else if (rest[i].startsWith('--patch-file=')) file = rest[i].slice(13);
      else fail(`error: the lab twin's kubectl does not play "patch ... ${rest[i]}"`);
    }
    if (!name || type !== 'merge' || file !== '/dev/stdin')
      fail('error: the lab twin\'s kubectl plays only "patch RESOURCE NAME --type merge --patch-file /dev/stdin [--field-manager=NAME]"');
    let patch;
    try {
      patch = JSON.parse(readFileSync(0, 'utf8'));
    } catch (e) {
      fail(`error: unable to parse the patch: ${e.message}`);
    }
    const r = await resolveResource(resource);
    const q = new URLSearchParams(manager ? { fieldManager: manager } : {});
    const res = await request('PATCH', `${objectPath(r, namespace, name)}?${q}`, patch, 'application/merge-patch+json');
    if (res.status !== 200) serverError(res);
    process.stdout.write(`${r.resource}/${name} patched\n`);
    return;
  }
  if (verb === 'wait') {
    let condition,
      jsonWant,
      timeout = 30;
    const targets = [];
    for (const a of args) {
      if (a.startsWith('--for=condition=')) condition = a.slice(16);
      else if (a.startsWith('--for=jsonpath=')) {
        const m = /^(\{[^}]*\})=(.*)$/.exec(a.slice(15));
        if (!m) fail(`error: the lab twin's kubectl plays only --for=jsonpath={...}=VALUE, not ${a}`);
        jsonWant = { path: m[1], value: m[2] };
      } else if (a.startsWith('--timeout=')) timeout = Number(a.slice(10).replace(/s$/, ''));
      else if (a.startsWith('-')) fail(`error: the lab twin's kubectl does not play "wait ... ${a}"`);
      else targets.push(a);
    }
    if ((!condition && !jsonWant) || targets.length === 0)
      fail('error: the lab twin\'s kubectl plays only "wait --for=condition=C|--for=jsonpath={...}=V [--timeout=Ns] RESOURCE/NAME..."');
    const deadline = Date.now() + Math.min(timeout, 10) * 1000;
    for (const t of targets) {
      const [resource, name] = t.split('/');
      const r = await resolveResource(resource);
      for (;;) {
        const got = await request('GET', objectPath(r, namespace, name));
        if (got.status !== 200) serverError(got);
        if (condition && ((got.body.status || {}).conditions || []).some((c) => c.type === condition && c.status === 'True')) break;
        if (jsonWant && jsonpath(got.body, jsonWant.path) === jsonWant.value) break;
        if (Date.now() > deadline) fail(`error: timed out waiting for the condition on ${t}`);
        await new Promise((res) => setTimeout(res, 1000));
      }
      process.stdout.write(`${t} condition met\n`);
    }
    return;
  }
  fail(`error: the lab twin's kubectl does not play "${verb}"`);
}

main(process.argv.slice(2)).catch((e) => fail(`error: ${e.message}`));
