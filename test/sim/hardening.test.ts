/**
 * The simulator under bad input (issue 13, item 5): a malformed request line gets 400 and the
 * server lives on; the /_sim admin API needs its secret; request bodies are bounded (413);
 * fault patterns that could backtrack forever are refused; a broken JSON body is a 400.
 */
import { FaultPlan, MAX_PATTERN } from '../../sim/faults';
import { MAX_BODY, MAX_UPLOAD_BODY, PveSimulator } from '../../sim/simulator';
import { request } from 'node:https';
import { raw, rawLine } from './support';

let sim: PveSimulator;
let endpoint: string;
let auth: { Authorization: string };

beforeAll(async () => {
  sim = await PveSimulator.start({ taskDurationMs: 50, instances: [{ name: 'x', nodes: [{ name: 'x1', cpu: 4, memoryMiB: 8192 }] }] });
  endpoint = sim.endpoint('x');
  auth = { Authorization: `PVEAPIToken=${sim.adminToken('x')}` };
});

afterAll(() => sim.stop());

describe('simulator hardening', () => {
  it('answers a malformed request target with 400 and keeps serving', async () => {
    const answer = await rawLine(endpoint, 'GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request - malformed URL/);
    const badEscape = await raw(endpoint, 'GET', '/api2/json/nodes/%E0%A4%A/status', auth);
    expect(badEscape.status).toBe(400);
    expect((await raw(endpoint, 'GET', '/api2/json/version', auth)).status).toBe(200);
  });

  it('keeps the /_sim admin API behind its secret', async () => {
    const anonymous = await raw(endpoint, 'GET', '/_sim/state');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json?.error).toMatch(/Authorization: Bearer/);
    // An API token is not the admin secret.
    expect((await raw(endpoint, 'PUT', '/_sim/faults', { ...auth, 'Content-Type': 'application/json' }, '{}')).status).toBe(401);
    const admin = await raw(endpoint, 'GET', '/_sim/state', { Authorization: `Bearer ${sim.adminSecret}` });
    expect(admin.status).toBe(200);
    expect(admin.body).not.toContain(sim.adminToken('x').split('=')[1]);
  });

  it('refuses request bodies over the limit with 413, by declared length or by what arrives', async () => {
    const big = Buffer.alloc(MAX_BODY + 1, 'a');
    const sent = await raw(
      endpoint,
      'POST',
      '/api2/json/pools',
      { ...auth, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': big.length },
      big,
    );
    expect(sent.status).toBe(413);
    const chunked = await raw(
      endpoint,
      'POST',
      '/api2/json/pools',
      { ...auth, 'Content-Type': 'application/x-www-form-urlencoded', 'Transfer-Encoding': 'chunked' },
      big,
    );
    expect(chunked.status).toBe(413);
    // An upload may be larger, up to its own limit; a declared length past it is refused before any byte is read.
    const upload = await raw(endpoint, 'POST', '/api2/json/nodes/x1/storage/local/upload', {
      ...auth,
      'Content-Type': 'multipart/form-data; boundary=b',
      'Content-Length': MAX_UPLOAD_BODY + 1,
    });
    expect(upload.status).toBe(413);
    expect((await raw(endpoint, 'GET', '/api2/json/version', auth)).status).toBe(200);
  });

  it('refuses fault patterns that could backtrack for ever, long ones, and backreferences — all at once', async () => {
    const res = await raw(
      endpoint,
      'PUT',
      '/_sim/faults',
      { Authorization: `Bearer ${sim.adminSecret}`, 'Content-Type': 'application/json' },
      JSON.stringify({ routes: [{ path: '^(a+)+$' }, { path: 'x'.repeat(MAX_PATTERN + 1) }], tasks: [{ type: '(q)\\1' }] }),
    );
    expect(res.status).toBe(400);
    expect(res.json?.error).toMatch(/routes\[0\]\.path: a quantified group that contains a quantifier/);
    expect(res.json?.error).toMatch(/routes\[1\]\.path is 201 characters long/);
    expect(res.json?.error).toMatch(/tasks\[0\]\.type: backreferences/);
    // Nothing of the refused spec is in force.
    expect(sim.faults.describe()).toEqual({ routes: [], tasks: [] });
    // With such a pattern in force, this request would never have been answered.
    const started = Date.now();
    expect((await raw(endpoint, 'GET', `/api2/json/${'a'.repeat(40)}!`, auth)).status).toBe(501);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(() => new FaultPlan({ routes: [{ path: '(x*)*y' }] })).toThrow(/quantified group/);
    expect(() => new FaultPlan({ routes: [{ path: '^/nodes/(a1|a2)/qemu$' }, { path: '^/version$' }] })).not.toThrow();
  });

  it('survives a JSON body with non-ASCII text, with or without a token (issue 26: one unauthenticated request killed it)', async () => {
    // JSON.parse quotes the body in its message ("Unexpected token 'é'"), which became the HTTP
    // reason phrase: Node refuses a non-ASCII status line with ERR_INVALID_CHAR, and the unhandled
    // rejection ended the process.
    const anonymous = await raw(endpoint, 'POST', '/api2/json/pools', { 'Content-Type': 'application/json' }, 'é');
    expect(anonymous.status).toBe(401);
    const signed = await raw(endpoint, 'POST', '/api2/json/pools', { ...auth, 'Content-Type': 'application/json' }, 'é');
    expect(signed.status).toBe(400);
    expect(signed.reason).toMatch(/^Parameter verification failed - JSON body: [\x20-\x7e]+$/);
    expect(signed.json?.message).toContain('é');
    expect((await raw(endpoint, 'GET', '/api2/json/version', auth)).status).toBe(200);
  });

  it('answers a request without a valid token before reading its body: an anonymous upload is never buffered (issue 26)', async () => {
    // Declares an upload just under the limit, sends 1 KiB of it and waits: PVE's pveproxy checks
    // the ticket or token on the headers (pve-http-server AnyEvent.pm unshift_read_header), so the
    // answer comes at once. The simulator used to wait for (and buffer) all 64 MiB first.
    const answer = (headers: Record<string, string | number>) =>
      new Promise<{ status: number; ms: number }>((resolve, reject) => {
        const started = Date.now();
        const req = request(new URL('api2/json/nodes/x1/storage/local/upload', endpoint), { method: 'POST', rejectUnauthorized: false, headers }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, ms: Date.now() - started });
        });
        req.on('error', reject);
        req.write(Buffer.alloc(1024, 'a'));
        const timer = setTimeout(() => {
          req.destroy();
          resolve({ status: 0, ms: Date.now() - started });
        }, 5000);
        timer.unref();
      });
    const headers = { 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': MAX_UPLOAD_BODY - 1 };
    expect(await answer(headers)).toEqual({ status: 401, ms: expect.any(Number) });
    expect(await answer({ ...headers, Authorization: 'PVEAPIToken=root@pam!pvekaas=wrong-secret' })).toEqual({ status: 401, ms: expect.any(Number) });
    // The admin API too: no secret, no body read.
    const admin = await new Promise<number>((resolve, reject) => {
      const req = request(
        new URL('_sim/faults', endpoint),
        { method: 'PUT', rejectUnauthorized: false, headers: { 'Content-Type': 'application/json', 'Content-Length': MAX_BODY } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('{');
      setTimeout(() => req.destroy(), 5000).unref();
    });
    expect(admin).toBe(401);
    expect((await raw(endpoint, 'GET', '/api2/json/version', auth)).status).toBe(200);
  });

  it('answers a broken JSON body with 400', async () => {
    const res = await raw(endpoint, 'POST', '/api2/json/pools', { ...auth, 'Content-Type': 'application/json' }, '{"poolid": ');
    expect(res.status).toBe(400);
    expect(res.reason).toMatch(/^Parameter verification failed - JSON body/);
  });

  it("takes parameter and role names that are JavaScript's own (__proto__, constructor, toString) as plain names, with Proxmox's answers", async () => {
    const form = { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' };
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      // A parameter the route does not take, twice, beside a valid pool id: the simulator ignores it (no internal error).
      const body = `${key}=1&${key}=2&poolid=js-${key.replace(/_/g, '')}`;
      const res = await raw(endpoint, 'POST', '/api2/json/pools', form, body);
      expect({ key, status: res.status, message: res.json?.message }).toEqual({ key, status: 200, message: undefined });
      const query = await raw(endpoint, 'GET', `/api2/json/pools?${key}=1&${key}=2`, auth);
      expect({ key, status: query.status }).toEqual({ key, status: 200 });
      const json = await raw(
        endpoint,
        'POST',
        '/api2/json/pools',
        { ...auth, 'Content-Type': 'application/json' },
        `{"${key}": {"polluted": 1}, "poolid": "json-${key.replace(/_/g, '')}"}`,
      );
      expect({ key, status: json.status, message: json.json?.message }).toEqual({ key, status: 200, message: undefined });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const role of ['constructor', 'toString', 'hasOwnProperty']) {
      const read = await raw(endpoint, 'GET', `/api2/json/access/roles/${role}`, auth);
      expect({ role, status: read.status, message: read.json?.message }).toEqual({ role, status: 500, message: `role '${role}' does not exist\n` });
      const change = await raw(endpoint, 'PUT', `/api2/json/access/roles/${role}`, form, 'privs=VM.Audit');
      expect({ role, message: change.json?.message }).toEqual({ role, message: `role '${role}' does not exist\n` });
      const create = await raw(endpoint, 'POST', '/api2/json/access/roles', form, `roleid=${role}&privs=VM.Audit`);
      expect({ role, status: create.status }).toEqual({ role, status: 200 });
      expect((await raw(endpoint, 'GET', `/api2/json/access/roles/${role}`, auth)).json?.data).toEqual({ 'VM.Audit': 1 });
      expect((await raw(endpoint, 'DELETE', `/api2/json/access/roles/${role}`, auth)).status).toBe(200);
    }
    expect((await raw(endpoint, 'GET', '/api2/json/version', auth)).status).toBe(200);
  });
});
