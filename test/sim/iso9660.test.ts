/**
 * Reading CAPMOX's bootstrap ISO: the fixture was written by go-diskfs v1.9.3 exactly as
 * go-proxmox v0.6.0 writes it for CAPMOX v0.9.0 (Rock Ridge + Joliet, volume id cidata; see
 * fixtures/make-iso). A small writer here makes the other shapes a reader meets: Joliet names only,
 * and plain ISO9660 names only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cloudInitFiles, readIso } from '../../sim/iso9660';

const SECTOR = 2048;

function record(name: Buffer, extent: number, size: number, directory: boolean): Buffer {
  const len = 33 + name.length + (name.length % 2 === 0 ? 1 : 0);
  const r = Buffer.alloc(len);
  r[0] = len;
  r.writeUInt32LE(extent, 2);
  r.writeUInt32BE(extent, 6);
  r.writeUInt32LE(size, 10);
  r.writeUInt32BE(size, 14);
  r[25] = directory ? 2 : 0;
  r.writeUInt16LE(1, 28);
  r.writeUInt16BE(1, 30);
  r[32] = name.length;
  name.copy(r, 33);
  return r;
}

const ucs2 = (s: string) => Buffer.from([...s].flatMap((c) => [0, c.charCodeAt(0)]));

/** An ISO9660 image with the given files in its root; names in the plain tree, and a Joliet tree if asked. */
function writeIso(files: { plain: string; long: string; data: string }[], joliet: boolean): Buffer {
  const dataStart = 21;
  const image = Buffer.alloc((dataStart + files.length) * SECTOR);
  const descriptor = (sector: number, type: number, root: number) => {
    const at = sector * SECTOR;
    image[at] = type;
    image.write('CD001', at + 1, 'latin1');
    image[at + 6] = 1;
    image.write('cidata'.padEnd(32, ' '), at + 40, 'latin1');
    if (type === 2) image.write('%/E', at + 88, 'latin1');
    record(Buffer.from([0]), root, SECTOR, true).copy(image, at + 156);
  };
  descriptor(16, 1, 19);
  if (joliet) descriptor(17, 2, 20);
  const terminator = joliet ? 18 : 17;
  image[terminator * SECTOR] = 255;
  image.write('CD001', terminator * SECTOR + 1, 'latin1');
  const directory = (sector: number, name: (f: (typeof files)[number]) => Buffer) => {
    let at = sector * SECTOR;
    for (const r of [
      record(Buffer.from([0]), sector, SECTOR, true),
      record(Buffer.from([1]), sector, SECTOR, true),
      ...files.map((f, i) => record(name(f), dataStart + i, Buffer.byteLength(f.data), false)),
    ]) {
      r.copy(image, at);
      at += r.length;
    }
  };
  directory(19, (f) => Buffer.from(f.plain, 'latin1'));
  if (joliet) directory(20, (f) => ucs2(`${f.long};1`));
  files.forEach((f, i) => image.write(f.data, (dataStart + i) * SECTOR, 'utf8'));
  return image;
}

const cloudInit = [
  { plain: 'USER_DAT.;1', long: 'user-data', data: '#cloud-config\nhostname: w1\n' },
  { plain: 'META_DAT.;1', long: 'meta-data', data: 'instance-id: 1234\n' },
  { plain: 'NETWORK_.;1', long: 'network-config', data: 'version: 2\n' },
];

describe('ISO9660 reader', () => {
  it("reads the files of CAPMOX's bootstrap ISO as go-diskfs writes it (Rock Ridge and Joliet)", () => {
    const image = readFileSync(join(__dirname, 'fixtures/capmox-user-data-100.iso'));
    const iso = readIso(image);
    expect(iso.volumeId).toBe('cidata');
    expect(iso.files.map((f) => f.name).sort()).toEqual(['meta-data', 'network-config', 'user-data']);
    const files = cloudInitFiles(image);
    expect(files.userData).toBe('## template: jinja\n#cloud-config\nruncmd:\n  - kubeadm join --token abcdef.0123456789abcdef\n');
    expect(files.metaData).toMatch(/^instance-id: 6ba7b810-9dad-11d1-80b4-00c04fd430c8\n/);
    expect(files.networkConfig).toContain('addresses: [10.10.1.10/24]');
  });

  it('takes the long names from a Joliet tree when there is no Rock Ridge', () => {
    expect(cloudInitFiles(writeIso(cloudInit, true))).toEqual({
      userData: '#cloud-config\nhostname: w1\n',
      metaData: 'instance-id: 1234\n',
      networkConfig: 'version: 2\n',
    });
  });

  it('falls back to the plain names, which cloud-init would not find', () => {
    const iso = readIso(writeIso(cloudInit, false));
    expect(iso.files.map((f) => f.name)).toEqual(['user_dat', 'meta_dat', 'network_']);
    expect(cloudInitFiles(writeIso(cloudInit, false))).toEqual({});
  });

  it('refuses what is not an ISO9660 image', () => {
    expect(() => readIso(Buffer.alloc(40 * SECTOR))).toThrow(/not an ISO9660 image/);
    expect(() => readIso(Buffer.from('#cloud-config\n'))).toThrow(/no primary volume descriptor/);
  });
});
