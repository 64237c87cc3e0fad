/**
 * No shared layer 2 (issue 42, item 4): a tenant VLAN equal to the management VIP VLAN is refused;
 * two tenants on one VLAN of one bridge of one instance are refused unless each names the other in
 * sharesLayer2With; several untagged tenants on one bridge are warned about; an http:// S3 endpoint
 * for the datastore backup is warned about. Every case through the real loader.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { ProblemError, type Problem } from '../../modules/config/problems';
import { labWarnings } from '../../modules/config/safety';

const exampleText = readFileSync(join(__dirname, '../../examples/lab.yaml'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits the raw YAML document before any type applies
const withLab = (change: (lab: any) => void): string => {
  const lab = parse(exampleText);
  change(lab);
  return stringify(lab);
};
const problemsOf = (text: string): Problem[] => {
  try {
    parseLab(text, 'lab.yaml');
    return [];
  } catch (e) {
    if (e instanceof ProblemError) return e.problems;
    throw e;
  }
};

describe('tenant VLANs', () => {
  test('a tenant on the management VIP VLAN is refused, on its networks entry too', () => {
    const problems = problemsOf(
      withLab((l) => {
        l.tenants[2].networks['pmox-fra'].vlan = 4;
      }),
    );
    expect(problems).toEqual([
      expect.objectContaining({
        rule: 'network.vlan-is-management-vip-vlan',
        path: ['tenants', 2, 'networks', 'pmox-fra', 'vlan'],
        message: expect.stringMatching(/tenant tenant-c's workers on pmox-fra would be on VLAN 4, the VLAN of the management load balancer/),
      }),
    ]);
  });

  test('two tenants on one VLAN of one bridge are refused; a mutual sharesLayer2With allows it, a one-sided one does not', () => {
    const shared = (a?: string[], b?: string[]) =>
      withLab((l) => {
        l.tenants[0].network.vlan = 10;
        l.tenants[1].network.vlan = 10;
        if (a) l.tenants[0].sharesLayer2With = a;
        if (b) l.tenants[1].sharesLayer2With = b;
      });
    expect(problemsOf(shared())).toEqual([
      expect.objectContaining({
        rule: 'network.vlan-shared',
        path: ['tenants', 1, 'network', 'vlan'],
        message:
          "tenant tenant-b would share VLAN 10 of bridge vmbr0 on pmox-txl with tenant tenant-a: one layer-2 network, where each can reach and spoof the other's machines",
      }),
    ]);
    expect(problemsOf(shared(['tenant-b']))).toHaveLength(1);
    expect(problemsOf(shared(['tenant-b'], ['tenant-a']))).toEqual([]);
    // One VLAN on two instances is two networks: tenant-a only uses pmox-txl, tenant-c's pmox-fra entry is another bridge.
    expect(
      problemsOf(
        withLab((l) => {
          l.tenants[0].network.vlan = 11;
          l.tenants[2].network.vlan = 12;
          l.tenants[2].networks['pmox-fra'].vlan = 11;
        }),
      ),
    ).toEqual([]);
  });

  test('sharesLayer2With names another tenant of the lab', () => {
    expect(problemsOf(withLab((l) => (l.tenants[0].sharesLayer2With = ['tenant-a', 'tenant-z'])))).toEqual([
      expect.objectContaining({
        rule: 'network.shares-layer2-with-unknown',
        path: ['tenants', 0, 'sharesLayer2With', 0],
        message: 'tenant tenant-a names itself in sharesLayer2With',
      }),
      expect.objectContaining({ rule: 'network.shares-layer2-with-unknown', path: ['tenants', 0, 'sharesLayer2With', 1] }),
    ]);
  });
});

describe('warnings', () => {
  test('several untagged tenants on one bridge: one warning per bridge, none once each gave a VLAN or all opted in', () => {
    const untagged = (text: string) => labWarnings(parseLab(text, 'lab.yaml')).filter((w) => w.path.at(-1) === 'bridge');
    expect(untagged(exampleText).map((w) => w.message)).toEqual([
      "tenants tenant-a, tenant-b, tenant-c have no VLAN and share bridge vmbr0 of pmox-txl untagged: one layer-2 network, where each can reach and spoof the others' machines",
      "tenants tenant-b, tenant-c have no VLAN and share bridge vmbr0 of pmox-fra untagged: one layer-2 network, where each can reach and spoof the others' machines",
    ]);
    const vlans = withLab((l) => {
      l.tenants[0].network.vlan = 10;
      l.tenants[1].network.vlan = 20;
      l.tenants[2].network.vlan = 30;
      l.tenants[2].networks['pmox-fra'].vlan = 31;
    });
    expect(untagged(vlans)).toEqual([]);
    const optedIn = withLab((l) => {
      l.tenants[0].sharesLayer2With = ['tenant-b', 'tenant-c'];
      l.tenants[1].sharesLayer2With = ['tenant-a', 'tenant-c'];
      l.tenants[2].sharesLayer2With = ['tenant-a', 'tenant-b'];
    });
    expect(untagged(optedIn)).toEqual([]);
  });

  test("an http:// S3 endpoint for the datastore backup (every tenant's Secrets) is warned about", () => {
    const text = withLab((l) => {
      l.management.datastore.backup = { schedule: '0 */6 * * *', retention: 2, s3: { endpoint: 'http://backup.lab.example:9000', bucket: 'kamaji-backups' } };
    });
    expect(labWarnings(parseLab(text, 'lab.yaml'))).toContainEqual(
      expect.objectContaining({
        path: ['management', 'datastore', 'backup', 's3', 'endpoint'],
        severity: 'warning',
        message: expect.stringMatching(/plain http: the S3 keys and the etcd snapshots/),
      }),
    );
  });
});
