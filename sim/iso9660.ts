/**
 * Reads the files of the root directory of an ISO9660 image — the cloud-init "NoCloud" ISO CAPMOX
 * uploads for each machine (go-proxmox v0.6.0 writes it with go-diskfs: ISO9660 with Rock Ridge
 * and Joliet, volume id `cidata`). Names come from Rock Ridge `NM` entries, else from the Joliet
 * tree, else from the plain ISO9660 names (`USER_DAT.;1` is all a plain reader would see).
 *
 * ECMA-119: 2048-byte sectors; volume descriptors from sector 16 (type 1 primary, 2 supplementary
 * — Joliet when its escape sequence is `%/@`, `%/C` or `%/E` —, 255 terminator); the root
 * directory record at byte 156 of a descriptor. SUSP/Rock Ridge (IEEE P1281/P1282): entries in
 * each record's system use area, continued through `CE` entries.
 */

const SECTOR = 2048;

export interface IsoFile {
  name: string;
  data: Buffer;
}

export interface IsoImage {
  volumeId: string;
  files: IsoFile[];
}

interface Record {
  name: string;
  extent: number;
  size: number;
  directory: boolean;
  /** Rock Ridge alternate name, if any. */
  rrName?: string;
}

/** The volume id and the root directory's files, or an error naming what is wrong. */
export function readIso(image: Buffer): IsoImage {
  let primary: Buffer | undefined;
  let joliet: Buffer | undefined;
  for (let sector = 16; sector < 16 + 64; sector++) {
    const at = sector * SECTOR;
    if (at + SECTOR > image.length) break;
    const vd = image.subarray(at, at + SECTOR);
    if (vd.toString('latin1', 1, 6) !== 'CD001') throw new Error(`not an ISO9660 image: no volume descriptor at sector ${sector}`);
    const type = vd[0];
    if (type === 255) break;
    if (type === 1 && !primary) primary = vd;
    if (type === 2 && ['%/@', '%/C', '%/E'].includes(vd.toString('latin1', 88, 91))) joliet = vd;
  }
  if (!primary) throw new Error('not an ISO9660 image: no primary volume descriptor');
  const volumeId = primary.toString('latin1', 40, 72).replace(/[\s\0]+$/, '');
  const rootOf = (vd: Buffer) => parseRecord(vd.subarray(156, 156 + 34), false, image)!;
  const plain = readDirectory(image, rootOf(primary), false);
  const byExtent = new Map<number, string>();
  if (joliet) for (const r of readDirectory(image, rootOf(joliet), true)) byExtent.set(r.extent, r.name);
  const files = plain
    .filter((r) => !r.directory)
    .map((r) => ({
      name: r.rrName ?? byExtent.get(r.extent) ?? plainName(r.name),
      data: Buffer.from(image.subarray(r.extent * SECTOR, r.extent * SECTOR + r.size)),
    }));
  return { volumeId, files };
}

/** `USER_DAT.;1` → `user_dat` (what a reader without extensions gets). */
function plainName(name: string): string {
  return name.replace(/;\d+$/, '').replace(/\.$/, '').toLowerCase();
}

function readDirectory(image: Buffer, dir: Record, jolietNames: boolean): Record[] {
  const out: Record[] = [];
  const start = dir.extent * SECTOR;
  const end = Math.min(start + dir.size, image.length);
  let at = start;
  while (at < end) {
    const len = image[at];
    if (len === 0) {
      // Records never cross a sector boundary: the rest of this sector is padding.
      at = (Math.floor(at / SECTOR) + 1) * SECTOR;
      continue;
    }
    const record = parseRecord(image.subarray(at, at + len), jolietNames, image);
    if (record && record.name !== '\u0000' && record.name !== '\u0001') out.push(record);
    at += len;
  }
  return out;
}

function parseRecord(buf: Buffer, jolietNames: boolean, image: Buffer): Record | undefined {
  if (buf.length < 34) return undefined;
  const nameLen = buf[32];
  const rawName = buf.subarray(33, 33 + nameLen);
  let name: string;
  if (nameLen === 1 && (rawName[0] === 0 || rawName[0] === 1)) name = String.fromCharCode(rawName[0]);
  else if (jolietNames) name = ucs2be(rawName).replace(/;\d+$/, '');
  else name = rawName.toString('latin1');
  const suStart = 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0);
  const rrName = jolietNames ? undefined : rockRidgeName(buf.subarray(suStart), image);
  return { name, extent: buf.readUInt32LE(2), size: buf.readUInt32LE(10), directory: (buf[25] & 2) !== 0, ...(rrName ? { rrName } : {}) };
}

function ucs2be(b: Buffer): string {
  let s = '';
  for (let i = 0; i + 1 < b.length; i += 2) s += String.fromCharCode(b.readUInt16BE(i));
  return s;
}

/** The name of the Rock Ridge `NM` entries of a system use area (following `CE` continuations). */
function rockRidgeName(area: Buffer, image: Buffer, depth = 0): string | undefined {
  let name = '';
  let found = false;
  let at = 0;
  while (at + 4 <= area.length) {
    const sig = area.toString('latin1', at, at + 2);
    const len = area[at + 2];
    if (len < 4 || at + len > area.length) break;
    if (sig === 'NM') {
      const flags = area[at + 4];
      // Flags 2 and 4 are "." and "..": no name.
      if (!(flags & 6)) {
        name += area.toString('utf8', at + 5, at + len);
        found = true;
      }
    } else if (sig === 'CE' && depth < 8) {
      const block = area.readUInt32LE(at + 4);
      const offset = area.readUInt32LE(at + 12);
      const length = area.readUInt32LE(at + 20);
      const from = block * SECTOR + offset;
      if (from + length <= image.length) {
        const more = rockRidgeName(image.subarray(from, from + length), image, depth + 1);
        if (more !== undefined) {
          name += more;
          found = true;
        }
      }
    } else if (sig === 'ST') break;
    at += len;
  }
  return found ? name : undefined;
}

/** The cloud-init files of a NoCloud image (`cidata`), by their names. */
export function cloudInitFiles(image: Buffer): { userData?: string; metaData?: string; networkConfig?: string; vendorData?: string } {
  const { files } = readIso(image);
  const text = (n: string) => files.find((f) => f.name === n)?.data.toString('utf8');
  const out: { userData?: string; metaData?: string; networkConfig?: string; vendorData?: string } = {};
  const entries: [keyof typeof out, string][] = [
    ['userData', 'user-data'],
    ['metaData', 'meta-data'],
    ['networkConfig', 'network-config'],
    ['vendorData', 'vendor-data'],
  ];
  for (const [key, file] of entries) {
    const v = text(file);
    if (v !== undefined) out[key] = v;
  }
  return out;
}
