/**
 * Downloads onto a storage: `query-url-metadata` and `download-url`.
 */
import { createHash } from 'node:crypto';
import { badParams, fail } from '../errors';
import { formatSize, type SimulatedInstance } from '../instance';
import { required, type AddRoute } from './router';

/** What the simulated internet serves at a URL: the catalog entry, or a stable made-up image. */
function remoteImage(inst: SimulatedInstance, url: string) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    badParams({ url: `invalid URL '${url}'` });
  }
  if (!['http:', 'https:', 'ftp:'].includes(parsed.protocol)) badParams({ url: `unsupported URL scheme in '${url}'` });
  const known = inst.options.remoteImages[url];
  if (known) return { ...known, filename: parsed.pathname.split('/').pop() || 'index.html', known: true };
  const h = createHash('sha256').update(url).digest();
  const size = (600 + (h.readUInt16BE(0) % 300)) * 1024 ** 2;
  return { size, virtualSize: 3584 * 1024 ** 2, checksums: {}, filename: parsed.pathname.split('/').pop() || 'index.html', known: false };
}

const CONTENT_FILE: Record<string, RegExp> = {
  iso: /\.(iso|img)$/i,
  vztmpl: /\.tar\.(gz|xz|zst)$/i,
  import: /\.(ova|qcow2|raw|vmdk)$/i,
};

export function registerDownloads(route: AddRoute): void {
  route('GET', '/nodes/{node}/query-url-metadata', ({ inst, authid, at, params }) => {
    inst.node(at.node);
    inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit', 'Sys.Modify']);
    const image = remoteImage(inst, required(params, 'url'));
    return { filename: image.filename, size: image.size, mimetype: 'application/octet-stream' };
  });

  route('POST', '/nodes/{node}/storage/{storage}/download-url', ({ inst, authid, at, params }) => {
    const storage = inst.storage(at.node, at.storage);
    const content = required(params, 'content');
    const filename = required(params, 'filename');
    const url = required(params, 'url');
    const allowed = inst.version.localeCompare('8.4', undefined, { numeric: true }) >= 0 ? ['iso', 'vztmpl', 'import'] : ['iso', 'vztmpl'];
    if (!allowed.includes(content)) badParams({ content: `value '${content}' does not have a value in the enumeration '${allowed.join(', ')}'` });
    if (!/^[-\w.]+$/.test(filename) || !CONTENT_FILE[content].test(filename)) badParams({ filename: `invalid filename or wrong extension for content type '${content}'` });
    inst.require(authid, `/storage/${at.storage}`, ['Datastore.AllocateTemplate']);
    inst.require(authid, `/nodes/${at.node}`, ['Sys.Audit', 'Sys.Modify']);
    if (!storage.content.includes(content)) fail(`storage '${at.storage}' does not support content type '${content}'`);
    const volid = `${at.storage}:${content}/${filename}`;
    if (inst.findVolume(at.node, volid)) fail(`refusing to override existing file '${filename}'`);
    const image = remoteImage(inst, url);
    const algorithm = params['checksum-algorithm'];
    const checksum = params.checksum?.toLowerCase();
    if (checksum && !algorithm) badParams({ 'checksum-algorithm': "'checksum-algorithm' is required when 'checksum' is set" });
    const path = `/var/lib/vz/${content === 'import' ? 'import' : content === 'iso' ? 'template/iso' : 'template/cache'}/${filename}`;
    return inst.startTask(at.node, 'download', filename, authid, () => {
      if (inst.findVolume(at.node, volid)) throw new Error(`refusing to override existing file '${filename}'`);
      const expected = algorithm ? image.checksums?.[algorithm]?.toLowerCase() : undefined;
      if (checksum && expected && checksum !== expected) throw new Error(`checksum mismatch: got '${expected}' != expect '${checksum}'`);
      const free = inst.capacity(at.storage) - inst.used(at.node, at.storage);
      if (image.size > free) throw new Error(`write error: No space left on device (downloading ${formatSize(image.size)} to '${at.storage}', ${formatSize(Math.max(0, free))} free)`);
      inst.volumes.push({
        volid,
        storage: at.storage,
        node: storage.shared ? undefined : at.node,
        content,
        format: filename.split('.').pop()!.toLowerCase(),
        size: image.size,
        virtualSize: image.virtualSize,
        ctime: Math.floor(Date.now() / 1000),
      });
      return [
        `downloading ${url} to ${path}`,
        `${formatSize(image.size)} downloaded${image.known ? '' : ' (simulated content: the URL is not in the simulator catalog)'}`,
        ...(checksum ? [expected ? `calculating checksum...OK, checksum verified` : 'checksum not verified (simulated content)'] : []),
        `download of '${url}' to '${path}' finished`,
      ];
    });
  });
}
