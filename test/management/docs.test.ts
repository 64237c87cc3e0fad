/** docs/management.md stays in step with the pins: every image a mirror must hold and every version. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { capiProviders, imageInventory, imageRef, pinnedVersions, versionKeys } from '../../modules/versions';
import { projectRoot } from './synth';

const doc = readFileSync(join(projectRoot, 'docs/management.md'), 'utf8');

describe('docs/management.md', () => {
  it.each(imageInventory(pinnedVersions).map((i) => [imageRef(i)]))('lists %s for the mirror', (image) => {
    expect(doc).toContain(image);
  });

  it('names every pinned version and every override key', () => {
    for (const key of versionKeys) {
      const value = pinnedVersions[key];
      if (value !== undefined) expect({ key, present: doc.includes(value) }).toEqual({ key, present: true });
      expect({ key, documented: doc.includes(key) }).toEqual({ key, documented: true });
    }
  });

  it('has a contract table row for every provider', () => {
    for (const p of capiProviders) expect(doc).toContain(`| ${pinnedVersions[p.versionKey]} |`);
  });
});
