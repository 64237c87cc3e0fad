/** The CAPMOX credentials an instance stack produces (cdktf tokens: cross-stack references). */
export interface InstanceCredentials {
  /** Proxmox API URL, e.g. https://pmox-txl.lab.example:8006 */
  readonly url: string;
  /** Per tenant with machines on the instance: its own token, whose VM privileges cover its own pool only. */
  readonly tenants: Readonly<Record<string, TenantToken>>;
}

export interface TenantToken {
  /** Token id, e.g. capmox@pve!tenant-a */
  readonly token: string;
  /** Token secret (sensitive). */
  readonly secret: string;
}
