/**
 * The review's "Control-plane VIPs and node addresses" section (modules/review/address-changes.ts):
 * which tenant got which VIP and why (a new tenant's first choice, a collision resolved, kept from
 * the last synth), and what an address edit does to running machines or why it is refused.
 */
import type { Lab } from '../../modules/config/schema';
import { planPlacement } from '../../modules/placement';
import { review } from '../../modules/review';
import { allocateVips, vipMemoryOf } from '../../modules/tenants/vip';
import { exampleLab } from '../tenants/fixtures';

function labOf(edit: (l: Lab) => void): Lab {
  const l = structuredClone(exampleLab());
  edit(l);
  return l;
}

function section(before: Lab, after: Lab, memory: ReadonlyMap<string, string>): string {
  const vips = [...allocateVips(after, memory).vips.values()];
  const { markdown } = review({
    before: { lab: before, plan: planPlacement(before), label: 'old' },
    after: { lab: after, plan: planPlacement(after), label: 'new' },
    vips: { after: vips, memory },
  });
  const start = markdown.indexOf('### Control-plane VIPs and node addresses');
  return start < 0 ? '' : markdown.slice(start).split(/\n### /)[0];
}

describe('review: control-plane VIPs and node addresses', () => {
  const before = exampleLab();
  const memory = vipMemoryOf(allocateVips(before));

  it('names a new tenant whose first choice is a running tenant’s address: the collision, whose address, and what it got instead', () => {
    // A 3-address pool holding the three deployed VIPs and one free address: every newcomer collides or takes the free one.
    const addresses = [...memory.values()].sort();
    const free = ['10.4.0.100', '10.4.0.101', '10.4.0.102', '10.4.0.104'].find((a) => !addresses.includes(a)) as string;
    const pool = [...addresses, free];
    // A newcomer whose first choice in that pool is a deployed tenant's address.
    const firstChoice = (name: string) =>
      allocateVips(labOf((l) => ((l.management.loadBalancer.addresses = pool), (l.tenants = [{ ...l.tenants[2], name }])))).vips.get(name)!.vip;
    const name = Array.from({ length: 50 }, (_, i) => `tenant-new-${i}`).find((n) => addresses.includes(firstChoice(n))) as string;
    const holder = [...memory].find(([, v]) => v === firstChoice(name))![0];
    const after = labOf((l) => {
      l.management.loadBalancer.addresses = pool;
      l.tenants.push({ ...l.tenants[2], name, vip: undefined });
    });
    const text = section(before, after, memory);
    expect(allocateVips(after, memory).vips.get(name)!.vip).toBe(free);
    expect(text).toContain(
      `| \`${name}\` | \`${free}\` | new tenant: its first choice \`${firstChoice(name)}\` is tenant \`${holder}\`'s — a collision, resolved: the next free address it ranks |`,
    );
    expect(text).toContain('3 other tenants keep their VIPs');
  });

  it('says nothing when no VIP and no address changes', () => {
    expect(section(before, before, memory)).toBe('');
  });

  it('explains a DNS edit and warns of a node range shrunk below the addresses in use', () => {
    const after = labOf((l) => {
      l.tenants[0].network!.dnsServers = ['10.10.1.53'];
      l.tenants[1].network!.addresses = ['10.10.2.30-10.10.2.60'];
    });
    const text = section(before, after, memory);
    expect(text).toContain('- tenant `tenant-a`, `network`: DNS servers 10.10.1.1 → 10.10.1.53: no machine is rolled for it');
    expect(text).toMatch(/- ⚠️ tenant tenant-b's network no longer holds 10\.10\.2\.10-10\.10\.2\.\d+/);
    const { warnings } = review({
      before: { lab: before, plan: planPlacement(before), label: 'old' },
      after: { lab: after, plan: planPlacement(after), label: 'new' },
    });
    expect(warnings).toEqual(expect.arrayContaining([expect.stringContaining("tenant tenant-b's network no longer holds")]));
  });
});
