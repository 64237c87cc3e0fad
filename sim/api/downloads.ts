/**
 * Downloads onto a storage: `query-url-metadata` and `download-url` (pve-manager
 * PVE::API2::Nodes query_url_metadata, PVE::API2::Storage::Status download_url). The simulator
 * really fetches the URL (http or https, bounded by the storage's free space) unless the
 * simulator's `remoteImages` catalog stands in for it; images of content `import` are checked the
 * way PVE checks an untrusted image (format by its header, no backing file) and get their real
 * virtual size.
 */
import { createHash } from 'node:crypto';
import { badParams, fail } from '../errors';
import { formatSize, type RemoteImage, type SimulatedInstance } from '../instance';
import { required, type AddRoute } from './router';
import { CONTENT_FILE, volumePath } from './storage';

const ALGORITHMS = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'];
const FETCH_TIMEOUT_MS = 120_000;

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    badParams({ url: `invalid URL '${url}'` });
  }
  if (!['http:', 'https:', 'ftp:'].includes(parsed.protocol)) badParams({ url: `unsupported URL scheme in '${url}'` });
  return parsed;
}

const fileName = (u: URL) => decodeURIComponent(u.pathname.split('/').pop() || '') || 'index.html';

/** A catalog entry of the simulated internet, if the URL has one. */
function catalog(inst: SimulatedInstance, url: string): RemoteImage | undefined {
  return inst.options.remoteImages[url];
}

class Oversize extends Error {}

/** GETs a URL, keeping at most `limit` bytes (more is a PVE-like "No space left on device"). */
async function fetchBytes(url: string, limit: number): Promise<{ data: Buffer; mimetype: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
  try {
    const res = await fetch(url, { signal: controller.signal, redirect: 'follow' });
    if (!res.ok) throw new Error(`download failed: ${res.status} ${res.statusText}`);
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > limit) throw new Oversize(String(declared));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > limit) {
        controller.abort();
        throw new Oversize(String(size));
      }
      chunks.push(Buffer.from(chunk));
    }
    return { data: Buffer.concat(chunks), mimetype: res.headers.get('content-type') ?? 'application/octet-stream' };
  } catch (e) {
    if (e instanceof Oversize) throw e;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      (e as Error).message.startsWith('download failed') ? (e as Error).message : `download failed: ${cause?.code ?? cause?.message ?? (e as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What `qemu-img info` says about an untrusted image of the given format (pve-storage
 * file_size_info with $untrusted): its virtual size, or why PVE refuses it.
 */
export function inspectImage(data: Buffer, format: string, path: string): { virtualSize: number } {
  if (format === 'qcow2') {
    // QCOW2 header: magic "QFI\xfb", version, backing_file_offset (8 bytes), backing_file_size, cluster_bits, size (8 bytes at 24).
    if (data.length < 32 || data.readUInt32BE(0) !== 0x514649fb) throw new Error(`qemu-img: Could not open '${path}': Image is not in qcow2 format`);
    if (data.readBigUInt64BE(8) !== 0n) throw new Error(`backing file not allowed for untrusted image '${path}'!`);
    return { virtualSize: Number(data.readBigUInt64BE(24)) };
  }
  if (format === 'vmdk') {
    // Sparse extent header: magic "KDMV", capacity in 512-byte sectors at 12.
    if (data.length >= 20 && data.toString('latin1', 0, 4) === 'KDMV') return { virtualSize: Number(data.readBigUInt64LE(12)) * 512 };
    throw new Error(`qemu-img: Could not open '${path}': Image is not in vmdk format`);
  }
  if (format === 'ova') {
    // A tar archive: "ustar" at 257.
    if (data.length >= 262 && data.toString('latin1', 257, 262) === 'ustar') return { virtualSize: data.length };
    throw new Error(`'${path}' is not a valid OVA (no tar archive)`);
  }
  return { virtualSize: data.length };
}

export function registerDownloads(route: AddRoute): void {
  route('GET', '/nodes/{node}/query-url-metadata', async ({ inst, authid, at, params }) => {
    inst.node(at.node);
    inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit', 'Sys.Modify']);
    const url = required(params, 'url');
    const parsed = parseUrl(url);
    const known = catalog(inst, url);
    if (known) return { filename: fileName(parsed), size: known.size, mimetype: 'application/octet-stream' };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30_000);
    try {
      const res = await fetch(url, { method: 'HEAD', signal: controller.signal, redirect: 'follow' });
      if (!res.ok) fail(`invalid server response: '${res.status} ${res.statusText}'`);
      const size = Number(res.headers.get('content-length') ?? NaN);
      const disposition = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1];
      return {
        filename: disposition ?? fileName(new URL(res.url || url)),
        ...(Number.isFinite(size) ? { size } : {}),
        mimetype: res.headers.get('content-type') ?? 'application/octet-stream',
      };
    } catch (e) {
      if ((e as { status?: number }).status) throw e;
      fail(`can't open '${url}': ${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  });

  route('POST', '/nodes/{node}/storage/{storage}/download-url', ({ inst, authid, at, params }) => {
    const storage = inst.storage(at.node, at.storage);
    const content = required(params, 'content');
    const filename = required(params, 'filename');
    const url = required(params, 'url');
    const allowed = inst.version.localeCompare('8.4', undefined, { numeric: true }) >= 0 ? ['iso', 'vztmpl', 'import'] : ['iso', 'vztmpl'];
    if (!allowed.includes(content)) badParams({ content: `value '${content}' does not have a value in the enumeration '${allowed.join(', ')}'` });
    if (!/^[-\w.]+$/.test(filename) || !CONTENT_FILE[content].test(filename))
      badParams({ filename: `invalid filename or wrong extension for content type '${content}'` });
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.AllocateTemplate']);
    inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit', 'Sys.Modify']);
    if (!storage.content.includes(content)) fail(`storage '${at.storage}' does not support content type '${content}'`);
    const volid = `${at.storage}:${content}/${filename}`;
    if (inst.findVolume(at.node, volid)) fail(`refusing to override existing file '${filename}'`);
    parseUrl(url);
    const algorithm = params['checksum-algorithm'];
    const checksum = params.checksum?.toLowerCase();
    if (checksum && !algorithm) badParams({ 'checksum-algorithm': "'checksum-algorithm' is required when 'checksum' is set" });
    if (algorithm && !ALGORITHMS.includes(algorithm))
      badParams({ 'checksum-algorithm': `value '${algorithm}' does not have a value in the enumeration '${ALGORITHMS.join(', ')}'` });
    const path = volumePath(storage.type, volid, storage.path);
    const format = content === 'iso' ? 'iso' : content === 'vztmpl' ? 'tgz' : filename.split('.').pop()!.toLowerCase();
    const known = catalog(inst, url);
    const store = (size: number, virtualSize: number | undefined, data?: Buffer) =>
      inst.volumes.push({
        volid,
        storage: at.storage,
        node: storage.shared ? undefined : at.node,
        content,
        format,
        size,
        ...(virtualSize !== undefined ? { virtualSize } : {}),
        ...(data ? { data } : {}),
        ctime: Math.floor(Date.now() / 1000),
      });
    const noSpace = (size: number, free: number) =>
      new Error(`write error: No space left on device (downloading ${formatSize(size)} to '${at.storage}', ${formatSize(Math.max(0, free))} free)`);
    return inst.startTask(at.node, 'download', filename, authid, async () => {
      if (inst.findVolume(at.node, volid)) throw new Error(`refusing to override existing file '${filename}'`);
      const free = inst.capacity(at.storage) - inst.used(at.node, at.storage);
      if (known) {
        // The catalog stands in for the internet: its size, and its checksums where it knows them.
        const expected = algorithm ? known.checksums?.[algorithm]?.toLowerCase() : undefined;
        if (checksum && expected && checksum !== expected) throw new Error(`checksum mismatch: got '${expected}' != expect '${checksum}'`);
        if (known.size > free) throw noSpace(known.size, free);
        store(known.size, known.virtualSize);
        return [
          `downloading ${url} to ${path}`,
          `${formatSize(known.size)} downloaded (simulated content from the simulator's catalog)`,
          ...(checksum ? [expected ? 'calculating checksum...OK, checksum verified' : 'checksum not verified (simulated content)'] : []),
          `download of '${url}' to '${path}' finished`,
        ];
      }
      let fetched: { data: Buffer };
      try {
        fetched = await fetchBytes(url, free);
      } catch (e) {
        if (e instanceof Oversize) throw noSpace(Number(e.message), free);
        throw e;
      }
      const { data } = fetched;
      if (checksum && algorithm) {
        const got = createHash(algorithm).update(data).digest('hex');
        if (got !== checksum) throw new Error(`checksum mismatch: got '${got}' != expect '${checksum}'`);
      }
      const image = content === 'import' ? inspectImage(data, format, path) : undefined;
      // Keep the bytes of ISOs (small, and read back by the lab twin); of disk images only the sizes.
      store(data.length, image?.virtualSize, content === 'iso' ? data : undefined);
      return [
        `downloading ${url} to ${path}`,
        `${formatSize(data.length)} downloaded`,
        ...(checksum ? ['calculating checksum...OK, checksum verified'] : []),
        `download of '${url}' to '${path}' finished`,
      ];
    });
  });
}
