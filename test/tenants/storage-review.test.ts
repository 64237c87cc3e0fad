/**
 * `review` shows storage changes (issue 38): each tenant's storage classes added, removed or
 * changed, and each instance's volume storages, from the two descriptions — in the PR comment.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { review } from '../../modules/review';
import { storageSection } from '../../modules/review/storage-changes';
import { projectRoot } from './fixtures';

const text = readFileSync(resolve(projectRoot, 'examples/lab-storage.yaml'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits of the raw YAML document
const labOf = (edit: (doc: any) => void = () => {}) => {
  const doc = parse(text);
  edit(doc);
  return parseLab(stringify(doc), 'lab.yaml');
};
const side = (lab: ReturnType<typeof labOf>, label: string) => ({ lab, plan: planPlacement(lab), label });

describe('review: storage changes', () => {
  const base = labOf();

  it('says nothing when no class and no volume storage changes', () => {
    expect(storageSection({ before: side(base, 'base'), after: side(labOf(), 'change') })).toBeUndefined();
  });

  it('lists classes added, removed and changed, and warns of a class removed or moved to another storage', () => {
    const after = labOf((d) => {
      d.proxmox.instances[0].storage.volumes.push('tenant-a-zfs');
      d.tenants[0].storage.classes = [
        { name: 'fast', storage: 'tenant-a-zfs', default: true },
        { name: 'bulk', storage: 'tenant-a-lvm' },
      ];
      d.tenants[1].storage.classes[0].reclaimPolicy = 'Retain';
    });
    const section = storageSection({ before: side(base, 'base'), after: side(after, 'change') })!;
    expect(section.lines).toEqual([
      '- instance pmox-txl: volume storages tenant-a-lvm, tenant-b-lvm → tenant-a-lvm, tenant-a-zfs, tenant-b-lvm.',
      '',
      '| tenant | class | before | after |',
      '|---|---|---|---|',
      '| tenant-a | `bulk` | — | storage `tenant-a-lvm`, Delete |',
      '| tenant-a | `fast` | storage `tenant-a-lvm`, Delete, default | storage `tenant-a-zfs`, Delete, default |',
      '| tenant-a | `keep` | storage `tenant-a-lvm`, Retain | — |',
      '| tenant-b | `standard` | storage `tenant-b-lvm`, Delete, default | storage `tenant-b-lvm`, Retain, default |',
    ]);
    expect(section.warnings).toEqual([
      'tenant tenant-a: storage class fast moves from `tenant-a-lvm` to `tenant-a-zfs`: existing volumes stay on `tenant-a-lvm`; new ones go to `tenant-a-zfs`',
      'tenant tenant-a: storage class keep removed; volumes on `tenant-a-lvm` stay, and its controller may no longer reach them if no class names the storage',
    ]);
    const md = review({ before: side(base, 'base'), after: side(after, 'change') }).markdown;
    expect(md).toContain('### Storage: persistent volume classes');
    expect(md).toContain('storage class keep removed');
  });
});
