/**
 * Test helpers for the simulator suites: raw HTTPS requests (JSON, multipart uploads, cookies,
 * malformed request lines) beside the form-encoded PveClient, and a valid qcow2 image.
 */
import { connect } from 'node:tls';
import { request } from 'node:https';

export interface RawResponse {
  status: number;
  reason: string;
  body: string;
  json: { data?: unknown; errors?: Record<string, string>; error?: string; message?: string } | undefined;
}

/** One HTTPS request with exactly these headers and body. */
export function raw(
  endpoint: string,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  body?: Buffer | string,
): Promise<RawResponse> {
  const url = new URL(path.replace(/^\//, ''), endpoint);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, rejectUnauthorized: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: RawResponse['json'];
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', body: text, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A request line written byte for byte over TLS (what an HTTP client library would refuse to send). */
export function rawLine(endpoint: string, requestText: string): Promise<string> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => socket.end(requestText));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

/** A multipart/form-data body the way go-proxmox's UploadReader writes one: fields, then the file part named `filename`. */
export function multipart(fields: Record<string, string>, filename: string, data: Buffer): { body: Buffer; contentType: string } {
  const boundary = 'b0undary7d1f2e3c4b5a6978';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="filename"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * A complete, empty qcow2 (version 3) image of `virtualSize` bytes with 64 KiB clusters, laid out
 * like `qemu-img create -f qcow2`: header, refcount table, refcount block, L1 table.
 */
export function qcow2(virtualSize: number): Buffer {
  const cluster = 65536;
  const l1Entries = Math.ceil(virtualSize / (cluster * (cluster / 8)));
  const image = Buffer.alloc(4 * cluster);
  image.writeUInt32BE(0x514649fb, 0); // magic QFI\xfb
  image.writeUInt32BE(3, 4); // version
  image.writeBigUInt64BE(0n, 8); // backing file offset: none
  image.writeUInt32BE(0, 16); // backing file size
  image.writeUInt32BE(16, 20); // cluster bits (64 KiB)
  image.writeBigUInt64BE(BigInt(virtualSize), 24); // size
  image.writeUInt32BE(0, 32); // no encryption
  image.writeUInt32BE(l1Entries, 36); // L1 size
  image.writeBigUInt64BE(BigInt(3 * cluster), 40); // L1 table offset
  image.writeBigUInt64BE(BigInt(cluster), 48); // refcount table offset
  image.writeUInt32BE(1, 56); // refcount table clusters
  image.writeUInt32BE(0, 60); // snapshots
  image.writeBigUInt64BE(0n, 64); // snapshots offset
  image.writeBigUInt64BE(0n, 72); // incompatible features
  image.writeBigUInt64BE(0n, 80); // compatible features
  image.writeBigUInt64BE(0n, 88); // autoclear features
  image.writeUInt32BE(4, 96); // refcount order (16-bit refcounts)
  image.writeUInt32BE(104, 100); // header length
  image.writeBigUInt64BE(BigInt(2 * cluster), cluster); // refcount table → refcount block
  for (let i = 0; i < 4; i++) image.writeUInt16BE(1, 2 * cluster + 2 * i); // clusters 0..3 in use
  return image;
}
