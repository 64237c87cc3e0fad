/**
 * Read-only Proxmox VE API reads for the drift audit: `GET /cluster/resources?type=vm` and
 * `?type=node` with an API token. The token is sent in the Authorization header only; errors
 * name the instance and the endpoint, never the token.
 */
import { request } from 'node:https';
import type { ObservedInstance, ResourceNode, ResourceVm } from '../../modules/foresight/audit';

export interface ReadTarget {
  instance: string;
  /** e.g. https://pmox-txl.lab.example:8006/ */
  endpoint: string;
  /** `user@realm!tokenname=secret`, for a token with read access (PVEAuditor on /). */
  token: string;
  /** Skip TLS verification (the instance's `insecure`). */
  insecure: boolean;
  timeoutMs?: number;
}

function getJson(target: ReadTarget, path: string): Promise<unknown> {
  const url = new URL(`api2/json${path}`, target.endpoint.endsWith('/') ? target.endpoint : `${target.endpoint}/`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', rejectUnauthorized: !target.insecure, headers: { Authorization: `PVEAPIToken=${target.token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        if (text.length > 64 * 1024 * 1024) req.destroy(new Error('response larger than 64 MiB'));
      });
      res.on('end', () => {
        if (res.statusCode !== 200) {
          reject(new Error(`GET ${url.origin}${url.pathname}${url.search} answered ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
          return;
        }
        try {
          resolve((JSON.parse(text) as { data: unknown }).data);
        } catch {
          reject(new Error(`GET ${url.origin}${url.pathname}${url.search} did not answer JSON`));
        }
      });
    });
    req.setTimeout(target.timeoutMs ?? 15000, () => req.destroy(new Error(`no answer from ${url.origin} in ${(target.timeoutMs ?? 15000) / 1000} s`)));
    req.on('error', (e) => reject(new Error(`${url.origin}: ${e.message}`)));
    req.end();
  });
}

export async function readInstance(target: ReadTarget): Promise<ObservedInstance> {
  const [vms, nodes] = await Promise.all([getJson(target, '/cluster/resources?type=vm'), getJson(target, '/cluster/resources?type=node')]);
  const observed = {
    instance: target.instance,
    vms: (Array.isArray(vms) ? vms : []).filter((r: { type?: string }) => r?.type === 'qemu') as ResourceVm[],
    nodes: (Array.isArray(nodes) ? nodes : []).filter((r: { type?: string }) => r?.type === 'node') as ResourceNode[],
  };
  // PVE leaves out what a token may not see: no node at all means missing rights, not a cluster without nodes.
  if (observed.nodes.length === 0) {
    throw new Error('the token sees no node, so every comparison would be wrong: give the user and its token the PVEAuditor role on / (VM.Audit and Sys.Audit)');
  }
  return observed;
}
