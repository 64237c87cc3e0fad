/**
 * The routing table of the simulated API and the parameter helpers every area shares. Each API
 * area (access, cluster, nodes, storage, downloads, pools, qemu, tasks) registers its routes
 * explicitly through `register<Area>(route)`; `sim/api/index.ts` lists the areas.
 */
import { badParams } from '../errors';
import type { SimulatedInstance } from '../instance';

export type Params = Record<string, string>;

export interface Call {
  inst: SimulatedInstance;
  authid: string;
  params: Params;
  /** Array-valued parameters: a JSON array, or a key repeated in a form or query. */
  arrays?: Record<string, string[]>;
  /** The file part of a multipart/form-data upload (form field `filename`). */
  upload?: { filename: string; data: Buffer };
  /** Values of the `{placeholders}` of the route. */
  at: Record<string, string>;
}

export type Handler = (call: Call) => unknown;
export type AddRoute = (method: string, template: string, handler: Handler) => void;

interface Route {
  method: string;
  template: string;
  re: RegExp;
  keys: string[];
  handler: Handler;
}

/**
 * A table of routes. `{name}` in a template matches one path segment; `{name+}` (last only)
 * matches the rest of the path, slashes included (a volume id such as `local:iso/a.iso`).
 */
export class Router {
  private readonly routes: Route[] = [];

  readonly add: AddRoute = (method, template, handler) => {
    const keys: string[] = [];
    const re = new RegExp(
      `^${template.replace(/\{(\w+)(\+?)\}/g, (_, k: string, rest: string) => {
        keys.push(k);
        return rest ? '(.+?)' : '([^/]+)';
      })}/?$`,
    );
    if (this.routes.some((r) => r.method === method && r.template === template)) throw new Error(`route ${method} ${template} registered twice`);
    this.routes.push({ method, template, re, keys, handler });
  };

  /** The route for a request, or undefined (PVE answers 501 "Method ... not implemented"). */
  find(method: string, path: string): { handler: Handler; at: Record<string, string> } | undefined {
    for (const r of this.routes) {
      if (r.method !== method) continue;
      const m = r.re.exec(path);
      if (m) return { handler: r.handler, at: Object.fromEntries(r.keys.map((k, i) => [k, decodeURIComponent(m[i + 1])])) };
    }
    return undefined;
  }

  templates(): string[] {
    return this.routes.map((r) => `${r.method} ${r.template}`);
  }
}

// ---- parameter helpers --------------------------------------------------------------------------

export const flag = (v: string | undefined, dflt = false) => (v === undefined || v === '' ? dflt : v === '1' || v === 'true');
export const list = (v: string | undefined) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);
export const bit = (b: boolean) => (b ? 1 : 0);

export function int(params: Params, key: string, opts: { min?: number; max?: number; required?: boolean } = {}): number | undefined {
  const raw = params[key];
  if (raw === undefined || raw === '') {
    if (opts.required) badParams({ [key]: 'property is missing and it is not optional' });
    return undefined;
  }
  if (!/^-?\d+$/.test(raw)) badParams({ [key]: `type check ('integer') failed - got '${raw}'` });
  const n = Number(raw);
  if (opts.min !== undefined && n < opts.min) badParams({ [key]: `value must have a minimum value of ${opts.min}` });
  if (opts.max !== undefined && n > opts.max) badParams({ [key]: `value may have a maximum value of ${opts.max}` });
  return n;
}

export function required(params: Params, key: string): string {
  const v = params[key];
  if (v === undefined || v === '') badParams({ [key]: 'property is missing and it is not optional' });
  return v;
}

export const ID = /^[A-Za-z0-9][A-Za-z0-9.\-_]*$/;

export function nonEmpty<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}
