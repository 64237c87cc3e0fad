/**
 * The part of the Proxmox VE API (`/api2/json/...`) that bpg/proxmox uses for the instance stack,
 * and that CAPMOX (through go-proxmox) uses for its machines: each area registers its routes, each
 * with the permission PVE checks and PVE's response shape and errors. See docs/proxmox.md.
 */
import { registerAccess } from './access';
import { registerCluster } from './cluster';
import { registerDownloads } from './downloads';
import { registerNodes } from './nodes';
import { registerPools } from './pools';
import { registerQemu } from './qemu';
import { Router } from './router';
import { registerStorage } from './storage';
import { registerTasks } from './tasks';

export type { Call, Params } from './router';
export { setFingerprint } from './nodes';

const router = new Router();
registerCluster(router.add);
registerNodes(router.add);
registerAccess(router.add);
registerPools(router.add);
registerStorage(router.add);
registerDownloads(router.add);
registerQemu(router.add);
registerTasks(router.add);

/** The handler for a request and its path values, or undefined (PVE answers 501). */
export function findRoute(method: string, path: string) {
  return router.find(method, path);
}

export function routeTemplates(): string[] {
  return router.templates();
}
