/** `twin --json`: the top-level `converged` is every tenant converged as planned; a tenant not converged says why. */
import { twinJson } from '../../scripts/twin';
import type { TwinTenant } from '../../twin/index';

const tenant = (name: string, notAsPlanned: string[]): TwinTenant => ({
  name,
  converged: notAsPlanned.length === 0,
  controlPlaneInitialized: true,
  waiting: notAsPlanned,
  notAsPlanned,
  machines: [],
});

describe('twin --json', () => {
  it('is converged only when every tenant is, and names the reason of each that is not', () => {
    expect(twinJson([tenant('a', []), tenant('b', [])])).toEqual({
      converged: true,
      tenants: [
        { name: 'a', converged: true, machines: [] },
        { name: 'b', converged: true, machines: [] },
      ],
    });
    const out = twinJson([tenant('a', []), tenant('b', ["machine m: IP 10.0.9.7 is outside the tenant's range on pve-a (10.0.1.10-10.0.1.60)"])]);
    expect(out.converged).toBe(false);
    expect(out.tenants[1]).toEqual({
      name: 'b',
      converged: false,
      waiting: ["machine m: IP 10.0.9.7 is outside the tenant's range on pve-a (10.0.1.10-10.0.1.60)"],
      machines: [],
    });
  });
});
