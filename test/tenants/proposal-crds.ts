/**
 * The pinned CAPMOX v0.9.0 CRDs extended with exactly the fields of the multi-instance proposal as
 * CAPMOX's open pull requests implement it (ionos-cloud/cluster-api-provider-proxmox #887, #888,
 * #889, open on 2026-12-03): ProxmoxCluster `spec.availabilityZones[] {name, nodes (at least one),
 * credentialsRef (a SecretReference: name, namespace)}`, in the v1alpha2 schemas of ProxmoxCluster
 * and ProxmoxClusterTemplate. A machine names its zone through CAPI's own `failureDomain`, which
 * the released CRDs of CAPI already have. Nothing else is added, so everything else a
 * proposal-mode tenant renders is still checked against the released schema.
 */
import type { CrdSet } from '../support/crds';

const GROUP = 'infrastructure.cluster.x-k8s.io';

export const availabilityZonesSchema = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['name'],
  items: {
    type: 'object',
    required: ['name', 'nodes'],
    properties: {
      name: { type: 'string', minLength: 1 },
      nodes: { type: 'array', minItems: 1, items: { type: 'string' } },
      credentialsRef: { type: 'object', properties: { name: { type: 'string' }, namespace: { type: 'string' } } },
    },
  },
};

function extend(crds: CrdSet, kind: string, at: (schema: any) => any, field: string, schema: unknown): void {
  const crd = crds.crds.get(`${GROUP}/${kind}`) as any;
  const version = crd.versions.find((v: any) => v.name === 'v1alpha2');
  at(version.schema).properties[field] = schema;
}

/** A copy of `base` with the proposal's fields; `base` itself is left as it is. */
export function withProposal(base: CrdSet): CrdSet {
  const crds: CrdSet = { crds: structuredClone(new Map(base.crds)) as any, validators: new Map(), ajv: base.ajv };
  extend(crds, 'ProxmoxCluster', (s) => s.properties.spec, 'availabilityZones', availabilityZonesSchema);
  extend(crds, 'ProxmoxClusterTemplate', (s) => s.properties.spec.properties.template.properties.spec, 'availabilityZones', availabilityZonesSchema);
  return crds;
}
