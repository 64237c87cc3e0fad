/**
 * `review` shows identity changes (issue 39): who gains or loses which role in which tenant, and
 * changes of the identity provider, from the two descriptions — in the PR comment markdown.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { review } from '../../modules/review';
import { identitySection } from '../../modules/review/identity-changes';
import { projectRoot } from './fixtures';

const text = readFileSync(resolve(projectRoot, 'examples/lab-identity.yaml'), 'utf8');
const labOf = (edit: (doc: any) => void = () => {}) => {
  const doc = parse(text);
  edit(doc);
  return parseLab(stringify(doc), 'lab.yaml');
};
const side = (lab: ReturnType<typeof labOf>, label: string) => ({ lab, plan: planPlacement(lab), label });

describe('review: identity changes', () => {
  const base = labOf();

  it('says nothing when access does not change', () => {
    expect(identitySection({ before: side(base, 'base'), after: side(labOf(), 'change') })).toBeUndefined();
  });

  it('lists who gains and who loses which role in which tenant, with the groups as the API servers name them', () => {
    const after = labOf((d) => {
      d.tenants[0].access.admins = ['team-a-admins', 'platform-oncall'];
      d.tenants[0].access.viewers = [];
      d.tenants[1].access.editors = ['team-b-developers'];
    });
    const section = identitySection({ before: side(base, 'base'), after: side(after, 'change') })!;
    expect(section.lines).toEqual([
      '| tenant | role | gains | loses |',
      '|---|---|---|---|',
      '| tenant-a | admins (cluster-admin) | `oidc:platform-oncall` |  |',
      '| tenant-a | viewers (view) |  | `oidc:auditors` |',
      '| tenant-b | editors (edit) | `oidc:team-b-developers` |  |',
    ]);
    expect(section.warnings).toEqual(['tenant tenant-a: oidc:platform-oncall gains cluster-admin']);
    // In the PR comment, its warning under "Must not miss".
    const md = review({ before: side(base, 'base'), after: side(after, 'change') }).markdown;
    expect(md).toContain('### Identity: who gains or loses access');
    expect(md).toContain('oidc:platform-oncall gains cluster-admin');
  });

  it('a group moved to another tenant shows as lost in one and gained in the other', () => {
    const after = labOf((d) => {
      d.tenants[0].access.editors = [];
      d.tenants[1].access.editors = ['team-a-developers'];
    });
    expect(identitySection({ before: side(base, 'base'), after: side(after, 'change') })!.lines.slice(2)).toEqual([
      '| tenant-a | editors (edit) |  | `oidc:team-a-developers` |',
      '| tenant-b | editors (edit) | `oidc:team-a-developers` |  |',
    ]);
  });

  it('a new issuer or client id and a removed identity provider are warnings; a prefix change rebinds every group', () => {
    const moved = labOf((d) => (d.identity.issuer = 'https://sso.lab.example'));
    expect(identitySection({ before: side(base, 'base'), after: side(moved, 'change') })!.warnings).toEqual([
      "identity.issuer changes `https://login.lab.example/realms/lab` → `https://sso.lab.example`: every tenant API server's login changes with it",
    ]);
    const gone = labOf((d) => {
      delete d.identity;
      for (const t of d.tenants) delete t.access;
    });
    const section = identitySection({ before: side(base, 'base'), after: side(gone, 'change') })!;
    expect(section.warnings?.[0]).toMatch(/identity provider `https:\/\/login\.lab\.example\/realms\/lab` removed/);
    expect(section.lines.filter((l) => l.startsWith('| tenant-'))).toHaveLength(8);
    const prefixed = labOf((d) => (d.identity.groupsPrefix = 'sso:'));
    const lines = identitySection({ before: side(base, 'base'), after: side(prefixed, 'change') })!.lines;
    expect(lines[0]).toMatch(/identity\.groupsPrefix changes `oidc:` → `sso:`/);
    expect(lines).toContain('| tenant-a | admins (cluster-admin) | `sso:team-a-admins` | `oidc:team-a-admins` |');
  });
});
