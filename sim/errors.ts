/**
 * Errors the way the Proxmox VE API reports them: the message in the HTTP reason phrase
 * (`HTTP/1.1 500 VM 100 already exists on node 'pve1'`), a JSON body with `data: null`, and for
 * parameter problems status 400 "Parameter verification failed." with an `errors` map.
 */
export class PveError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string>,
  ) {
    super(message);
  }
}

/** 500 with a PVE message, e.g. "pool 'capi' does not exist". */
export function fail(message: string): never {
  throw new PveError(500, message);
}

/** 400 Parameter verification failed, with one message per parameter. */
export function badParams(errors: Record<string, string>): never {
  throw new PveError(400, 'Parameter verification failed.', errors);
}

/** 403 as PVE words it. */
export function forbidden(path: string, privs: readonly string[]): never {
  throw new PveError(403, `Permission check failed (${path}, ${privs.join('|')})`);
}
