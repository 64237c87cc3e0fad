/**
 * QEMU VM configuration the way PVE stores and returns it: drive and NIC property strings, tags,
 * and the JSON types of `GET .../qemu/<vmid>/config` (numbers and 0/1 booleans are numbers there;
 * bpg/proxmox decodes them strictly).
 */
import { createHash } from 'node:crypto';

/** `scsi0`, `virtio3`, `ide2`, `sata1`, `efidisk0`, `tpmstate0`, `unused0`. */
export const DRIVE_KEY = /^(ide|sata|scsi|virtio)\d+$|^efidisk0$|^tpmstate0$/;
export const NET_KEY = /^net\d+$/;

const INTEGER_KEYS = new Set(['cores', 'sockets', 'vcpus', 'cpuunits', 'balloon', 'shares', 'migrate_speed', 'bwlimit', 'memory']);
const BOOLEAN_KEYS = new Set([
  'acpi',
  'autostart',
  'ciupgrade',
  'freeze',
  'keephugepages',
  'kvm',
  'localtime',
  'numa',
  'onboot',
  'protection',
  'reboot',
  'tablet',
  'tdf',
  'template',
]);
const FLOAT_KEYS = new Set(['cpulimit', 'migrate_downtime']);

/** A property string such as `virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=0`, in order. */
export interface PropertyString {
  /** The leading value without a key (a drive's volume), if any. */
  head?: string;
  pairs: [string, string][];
}

export function parseProperties(text: string, headKey?: string): PropertyString {
  const result: PropertyString = { pairs: [] };
  text.split(',').forEach((part, i) => {
    const eq = part.indexOf('=');
    if (eq < 0) {
      if (i === 0) result.head = part;
      return;
    }
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (headKey && key === headKey && result.head === undefined) result.head = value;
    else result.pairs.push([key, value]);
  });
  return result;
}

export function get(props: PropertyString, key: string): string | undefined {
  return props.pairs.find(([k]) => k === key)?.[1];
}

export function without(props: PropertyString, ...keys: string[]): [string, string][] {
  return props.pairs.filter(([k]) => !keys.includes(k));
}

export function printProperties(head: string | undefined, pairs: [string, string][]): string {
  return [...(head !== undefined ? [head] : []), ...pairs.map(([k, v]) => `${k}=${v}`)].join(',');
}

/** PVE normalizes tags: split on `;`, `,` or space, deduplicated, sorted. */
export function normalizeTags(text: string): string {
  return [...new Set(text.split(/[;, ]+/).filter(Boolean))].sort().join(';');
}

const NIC_MODELS = ['e1000', 'e1000e', 'rtl8139', 'virtio', 'vmxnet3'];

/** A NIC as PVE writes it: `<model>=<mac>,bridge=...`, whichever form it was given in. */
export function normalizeNic(text: string, defaultMac: string): { value: string; bridge?: string; tag?: string; trunks?: string } {
  const props = parseProperties(text);
  let model = get(props, 'model') ?? (props.head && NIC_MODELS.includes(props.head) ? props.head : undefined);
  let mac = get(props, 'macaddr');
  for (const [k, v] of props.pairs) {
    if (NIC_MODELS.includes(k)) {
      model = k;
      mac = v || mac;
    }
  }
  const rest = props.pairs.filter(([k]) => k !== 'model' && k !== 'macaddr' && !NIC_MODELS.includes(k));
  return {
    value: printProperties(undefined, [[model ?? 'virtio', (mac || defaultMac).toUpperCase()], ...rest]),
    bridge: get(props, 'bridge'),
    tag: get(props, 'tag'),
    trunks: get(props, 'trunks'),
  };
}

/** The JSON shape of `GET config`: typed values, plus the digest of the config text. */
export function configJson(config: Map<string, string>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const key of [...config.keys()].sort()) {
    const value = config.get(key)!;
    if (INTEGER_KEYS.has(key) && /^-?\d+$/.test(value)) out[key] = Number(value);
    else if (BOOLEAN_KEYS.has(key)) out[key] = value === '1' || value === 'true' ? 1 : 0;
    else if (FLOAT_KEYS.has(key) && /^-?\d+(\.\d+)?$/.test(value)) out[key] = Number(value);
    else out[key] = value;
  }
  out.digest = configDigest(config);
  return out;
}

export function configDigest(config: Map<string, string>): string {
  const text = [...config.keys()]
    .sort()
    .map((k) => `${k}: ${config.get(k)}`)
    .join('\n');
  return createHash('sha1').update(text).digest('hex');
}

/** The privilege PVE asks for to change a config key (qemu-server's `check_vm_modify_config_perm`). */
export function privilegeForKey(key: string): string {
  if (DRIVE_KEY.test(key) || /^unused\d+$/.test(key)) return 'VM.Config.Disk';
  if (NET_KEY.test(key)) return 'VM.Config.Network';
  if (['cores', 'sockets', 'vcpus', 'cpu', 'cpulimit', 'cpuunits', 'affinity', 'numa'].includes(key) || /^numa\d+$/.test(key)) return 'VM.Config.CPU';
  if (['memory', 'balloon', 'shares', 'hugepages', 'keephugepages'].includes(key)) return 'VM.Config.Memory';
  if (['ciuser', 'cipassword', 'citype', 'ciupgrade', 'cicustom', 'nameserver', 'searchdomain', 'sshkeys'].includes(key) || /^ipconfig\d+$/.test(key)) {
    return 'VM.Config.Cloudinit';
  }
  if (
    ['bios', 'machine', 'scsihw', 'vga', 'ostype', 'arch', 'kvm', 'acpi', 'tablet', 'smbios1', 'rng0', 'watchdog', 'audio0'].includes(key) ||
    /^(serial|usb|hostpci)\d+$/.test(key)
  ) {
    return 'VM.Config.HWType';
  }
  return 'VM.Config.Options';
}
