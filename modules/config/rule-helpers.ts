/**
 * What the lab rules share (./rules.ts, ./instance-rules.ts): walks over every instance, tenant and
 * pool with their paths, and the problems of a name used twice or of a reference that does not
 * resolve (with the closest known name). The rules that call them own the problems: `runRules` tags
 * each with the id of the rule that found it.
 */
import type { Problem } from './problems';
import type { Lab } from './schema';

export function duplicates<T>(items: readonly T[], key: (item: T) => string, path: (i: number) => (string | number)[], what: string): Problem[] {
  const seen = new Map<string, number>();
  const problems: Problem[] = [];
  items.forEach((item, i) => {
    const k = key(item);
    const first = seen.get(k);
    if (first === undefined) seen.set(k, i);
    else
      problems.push({
        path: path(i),
        message: `${what} "${k}" is used twice (first at index ${first})`,
        value: k,
        fix: `give each ${what} a unique name`,
      });
  });
  return problems;
}

export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestScore) {
      bestScore = d;
      best = c;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

export function unknownRef(path: (string | number)[], what: string, name: string, known: readonly string[]): Problem {
  const guess = closest(name, known);
  return {
    path,
    message: `unknown ${what} "${name}"`,
    value: name,
    fix: guess ? `did you mean "${guess}"? Known: ${known.join(', ')}` : `use one of: ${known.join(', ')}`,
  };
}

export type Instance = Lab['proxmox']['instances'][number];
export type Tenant = Lab['tenants'][number];
export type Pool = Tenant['pools'][number];

/** The problems of every instance, each found with the instance, its path and its node names. */
export function perInstance(lab: Lab, check: (instance: Instance, base: (string | number)[], nodeNames: string[]) => Problem[]): Problem[] {
  return lab.proxmox.instances.flatMap((instance, ii) =>
    check(
      instance,
      ['proxmox', 'instances', ii],
      instance.nodes.map((n) => n.name),
    ),
  );
}

/** The problems of every tenant. */
export function perTenant(lab: Lab, check: (tenant: Tenant, base: (string | number)[]) => Problem[]): Problem[] {
  return lab.tenants.flatMap((tenant, ti) => check(tenant, ['tenants', ti]));
}

/** The problems of every pool of every tenant, its current pools and those of `previous`. */
export function perPool(lab: Lab, check: (pool: Pool, at: (string | number)[], tenant: Tenant) => Problem[]): Problem[] {
  return perTenant(lab, (tenant, base) => [
    ...tenant.pools.flatMap((pool, pi) => check(pool, [...base, 'pools', pi], tenant)),
    ...(tenant.previous?.pools ?? []).flatMap((pool, pi) => check(pool, [...base, 'previous', 'pools', pi], tenant)),
  ]);
}
