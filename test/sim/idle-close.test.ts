/**
 * The simulator closes a connection idle for 5 s between requests, as pveproxy does
 * (pve-http-server AnyEvent.pm, `timeout` 5), and only one that is really idle: a request that
 * arrived while the simulator's process was busy (the lab twin synthesizes in the same process) is
 * answered, never reset. The client runs in a process of its own, on one TLS connection, so the
 * test can hold the simulator's event loop without holding the client.
 */
import { spawn } from 'node:child_process';
import { IDLE_CLOSE_MS, PveSimulator } from '../../sim/simulator';

let sim: PveSimulator | undefined;
beforeAll(async () => {
  sim = await PveSimulator.start({ taskDurationMs: 50, instances: [{ name: 'x', nodes: [{ name: 'x1', cpu: 4, memoryMiB: 8192 }] }] });
});
afterAll(async () => {
  await sim?.stop();
});

/** Two GETs of /version on one connection, the second `gapMs` after the first answer; what the client saw, line by line. */
function client(gapMs: number, onFirst: () => void): Promise<string[]> {
  const url = new URL(sim!.endpoint('x'));
  const script = `
const tls = require('node:tls');
const [host, port, token, gap] = process.argv.slice(1);
const socket = tls.connect({ host, port: Number(port), rejectUnauthorized: false });
const request = 'GET /api2/json/version HTTP/1.1\\r\\nHost: ' + host + '\\r\\nAuthorization: PVEAPIToken=' + token + '\\r\\nConnection: keep-alive\\r\\n\\r\\n';
let answers = 0, buffered = '';
socket.on('secureConnect', () => socket.write(request));
socket.on('data', (d) => {
  buffered += d.toString();
  const m = /^HTTP\\/1\\.1 (\\d+)/.exec(buffered);
  if (!m || !/\\r\\n\\r\\n/.test(buffered)) return;
  buffered = '';
  answers++;
  console.log('answer ' + answers + ' ' + m[1]);
  if (answers === 1) setTimeout(() => { console.log('second sent'); socket.write(request); }, Number(gap));
  else process.exit(0);
});
socket.on('end', () => console.log('closed by the server'));
socket.on('error', (e) => console.log('error ' + e.code));
socket.on('close', () => process.exit(0));
`;
  const child = spawn(process.execPath, ['-e', script, url.hostname, url.port, sim!.adminToken('x'), String(gapMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    for (const line of d.split('\n').filter(Boolean)) {
      lines.push(line);
      if (line === 'answer 1 200') onFirst();
    }
  });
  return new Promise((resolve) => child.on('exit', () => resolve(lines)));
}

describe("the simulator's idle connections", () => {
  it('closes a connection idle for 5 s, as pveproxy does', async () => {
    const lines = await client(IDLE_CLOSE_MS + 1500, () => {});
    expect(lines.slice(0, 2)).toEqual(['answer 1 200', 'closed by the server']);
  }, 20000);

  it('answers a request that arrived in time while its process was busy past the 5 s', async () => {
    // The client sends its second request 4 s after the first answer; the simulator's process is
    // held (synchronously, as a synth would) from 3.5 s to 6.5 s, so when it runs again the idle
    // time is over and the request is waiting to be read.
    const lines = await client(4000, () => {
      // Held from an I/O phase's side (setImmediate), as a synth started from a response is: the
      // event loop's next turn then runs its timers before it reads the sockets.
      setTimeout(
        () =>
          setImmediate(() => {
            const until = Date.now() + 3000;
            while (Date.now() < until) {
              // busy: the event loop is held
            }
          }),
        3500,
      );
    });
    expect(lines).toEqual(['answer 1 200', 'second sent', 'answer 2 200']);
  }, 20000);
});
