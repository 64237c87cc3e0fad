/**
 * The HTTP side of the simulator, as pveproxy and pve-http-server behave: request limits, reading
 * and parsing bodies (form, JSON, multipart), answering, and closing idle connections.
 */
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from './api';
import { PveError } from './errors';

/** Longest request target the simulator reads (PVE's pveproxy refuses long ones too). */
export const MAX_URL = 8 * 1024;
/** Request bodies: 1 MiB, and 64 MiB for uploads (a bootstrap ISO is well under 1 MiB). */
export const MAX_BODY = 1024 ** 2;
export const MAX_UPLOAD_BODY = 64 * 1024 ** 2;

export class BodyTooLarge extends Error {}

/** Answers without reading the body, then closes the connection (what is left unread is never buffered). */
export function refuseUnread(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, reason: string): void {
  res.setHeader('Connection', 'close');
  send(res, status, body, reason);
  res.on('finish', () => req.destroy());
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      done = true;
      reject(e);
    });
  });
}

export interface Input {
  params: Params;
  /** Array-valued parameters (a JSON array, or a key repeated in a form or query). */
  arrays: Record<string, string[]>;
  upload?: { filename: string; data: Buffer };
}

/** Query and body parameters the way PVE reads them: form, JSON or multipart/form-data. */
export function parseInput(url: URL, body: Buffer, contentType: string | undefined): Input {
  // No prototype: a parameter named __proto__, constructor or toString is a name like any other.
  const params: Params = Object.create(null) as Params;
  const arrays: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const add = (k: string, v: string) => {
    if (Object.hasOwn(params, k)) (arrays[k] ??= [params[k]]).push(v);
    else params[k] = v;
  };
  for (const [k, v] of url.searchParams) add(k, v);
  if (body.length === 0) return { params, arrays };
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('multipart/form-data')) {
    const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
    if (!m) throw new PveError(400, 'Parameter verification failed.', { filename: 'multipart body without boundary' });
    const parts = parseMultipart(body, m[1] ?? m[2]);
    let upload: Input['upload'];
    for (const part of parts) {
      if (part.filename !== undefined) {
        if (part.name === 'filename') {
          upload = { filename: part.filename, data: part.data };
          params.filename = part.filename;
        }
      } else add(part.name, part.data.toString('utf8'));
    }
    return { params, arrays, upload };
  }
  if (type.includes('application/json')) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw new PveError(400, `Parameter verification failed - JSON body: ${(e as Error).message}`);
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json))
      throw new PveError(400, 'Parameter verification failed - the JSON body must be an object');
    for (const [k, v] of Object.entries(json as Record<string, unknown>)) {
      if (Array.isArray(v)) {
        arrays[k] = v.map((x) => String(x));
        params[k] = arrays[k].join(',');
      } else if (v !== null && v !== undefined) params[k] = typeof v === 'boolean' ? (v ? '1' : '0') : typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
    return { params, arrays };
  }
  for (const [k, v] of new URLSearchParams(body.toString('utf8'))) add(k, v);
  return { params, arrays };
}

/** RFC 7578 multipart/form-data: each part's name, filename (file parts) and bytes. */
export function parseMultipart(body: Buffer, boundary: string): { name: string; filename?: string; data: Buffer }[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { name: string; filename?: string; data: Buffer }[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw new PveError(400, 'Parameter verification failed.', { filename: 'multipart body without its boundary' });
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', at);
    if (headerEnd < 0) throw new PveError(400, 'Parameter verification failed.', { filename: 'truncated multipart body' });
    const headers = body.subarray(at, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw new PveError(400, 'Parameter verification failed.', { filename: 'truncated multipart body' });
    const disposition = /content-disposition:\s*form-data([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1] ?? '';
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    parts.push({ name, ...(filename !== undefined ? { filename } : {}), data: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
  return parts;
}

export function send(res: ServerResponse, status: number, body: unknown, reason?: string): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  // A status line is ASCII: a non-ASCII reason (PVE's message quoting a JSON body, "é") made
  // Node throw ERR_INVALID_CHAR and took the simulator down.
  if (reason)
    res.statusMessage = reason
      .replace(/[\r\n]+/g, ' ')
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 500);
  res.setHeader('Content-Type', 'application/json;charset=UTF-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('Server', 'pve-api-daemon/3.0 (pvekaas simulator)');
  res.end(text);
}

/** How long pveproxy keeps an idle connection open between requests (below). */
export const IDLE_CLOSE_MS = 5000;

/**
 * pveproxy closes a connection that has been idle for 5 s between requests (pve-http-server
 * `src/PVE/APIServer/AnyEvent.pm`: `$self->{timeout} = 5` unless configured, armed on the
 * connection's handle after each response with `timeout_reset`/`timeout`, disarmed while a request
 * is read). The simulator does the same, and only to a connection that is really idle. Node's own
 * keep-alive timeout runs in the timers phase of the event loop, before the poll phase reads what
 * arrived: when the loop was held for a while (the simulator shares its process with the lab twin,
 * which synthesizes stacks synchronously), it would close a connection whose next request had
 * arrived in time, and OpenTofu's POST on it fails with "connection reset by peer" — a failure real
 * pveproxy, reading the request as it arrives, does not make (seen 2026-12-04 in a fresh clone's
 * twin suites, four at once). So the check runs after the poll phase (setImmediate): a request that
 * arrived is read first, and the connection stays open.
 */
export function closeIdleConnections(server: Server): void {
  server.keepAliveTimeout = 0;
  const state = new WeakMap<object, { pending: number; requests: number; timer?: NodeJS.Timeout }>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const s = state.get(socket) ?? { pending: 0, requests: 0 };
    state.set(socket, s);
    clearTimeout(s.timer);
    s.pending++;
    s.requests++;
    res.on('close', () => {
      s.pending--;
      if (s.pending > 0 || socket.destroyed) return;
      const seen = s.requests;
      clearTimeout(s.timer);
      s.timer = setTimeout(
        () =>
          setImmediate(() => {
            if (s.pending === 0 && s.requests === seen && !socket.destroyed) socket.destroy();
          }),
        IDLE_CLOSE_MS,
      );
      s.timer.unref();
    });
  });
}
