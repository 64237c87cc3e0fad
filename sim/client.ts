/**
 * A minimal Proxmox VE API client for tests and checks against the simulator: token auth,
 * form-encoded parameters like PVE's own clients, and waiting for tasks by UPID.
 */
import { request } from 'node:https';

export interface PveResponse<T = unknown> {
  status: number;
  /** The reason phrase, where PVE puts its error message. */
  reason: string;
  data: T;
  errors?: Record<string, string>;
}

export class PveClient {
  /** @param endpoint e.g. https://127.0.0.1:8006/ @param token `user@realm!name=secret` */
  constructor(
    readonly endpoint: string,
    readonly token: string,
  ) {}

  call<T = unknown>(method: string, path: string, params: Record<string, string | number | boolean> = {}): Promise<PveResponse<T>> {
    const form = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v)]),
    ).toString();
    const inQuery = method === 'GET' || method === 'DELETE';
    const url = new URL(`api2/json${path}${inQuery && form ? `?${form}` : ''}`, this.endpoint);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          rejectUnauthorized: false,
          headers: {
            Authorization: `PVEAPIToken=${this.token}`,
            ...(inQuery || !form ? {} : { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(form) }),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            const body: { data: T; errors?: Record<string, string> } = text ? JSON.parse(text) : { data: null };
            resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', data: body.data, ...(body.errors ? { errors: body.errors } : {}) });
          });
        },
      );
      req.on('error', reject);
      if (!inQuery && form) req.write(form);
      req.end();
    });
  }

  /** Polls a task until it stops; returns its exit status (`OK` or the error). */
  async waitForTask(upid: string, timeoutMs = 30000): Promise<string> {
    const node = upid.split(':')[1];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await this.call<{ status: string; exitstatus?: string }>('GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
      if (res.status !== 200) throw new Error(`task status: ${res.status} ${res.reason}`);
      if (res.data.status === 'stopped') return res.data.exitstatus ?? '';
      if (Date.now() > deadline) throw new Error(`task ${upid} still running after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
