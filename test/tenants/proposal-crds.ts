/**
 * The pinned CAPMOX v0.9.0 CRDs extended with exactly the fields of the multi-instance proposal
 * (../shared/seeds/multi-proxmox-proposal.txt): ProxmoxCluster `spec.settings {mode, instances[
 * {name, nodes, template, credentialsRef}]}` and ProxmoxMachine `spec.instance`, in the v1alpha2
 * schemas of ProxmoxCluster, ProxmoxClusterTemplate, ProxmoxMachine and ProxmoxMachineTemplate.
 * Nothing else is added, so everything else a proposal-mode tenant renders is still checked
 * against the released schema.
 */
import type { CrdSet } from '../../modules/crds';

const GROUP = 'infrastructure.cluster.x-k8s.io';

export const proposalSettingsSchema = {
  type: 'object',
  required: ['mode'],
  properties: {
    mode: { type: 'string', enum: ['Default', 'SingleInstance', 'MultiInstance'] },
    instances: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          nodes: { type: 'array', items: { type: 'string' } },
          template: {
            type: 'object',
            properties: {
              sourceNode: { type: 'string' },
              templateID: { type: 'integer', format: 'int32' },
              templateSelector: {
                type: 'object',
                required: ['matchTags'],
                properties: { matchTags: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
          credentialsRef: { type: 'object', properties: { name: { type: 'string' }, namespace: { type: 'string' } } },
        },
      },
    },
  },
};

export const proposalInstanceSchema = { type: 'string' };

function extend(crds: CrdSet, kind: string, at: (schema: any) => any, field: string, schema: unknown): void {
  const crd = crds.crds.get(`${GROUP}/${kind}`) as any;
  const version = crd.versions.find((v: any) => v.name === 'v1alpha2');
  at(version.schema).properties[field] = schema;
}

/** A copy of `base` with the proposal's fields; `base` itself is left as it is. */
export function withProposal(base: CrdSet): CrdSet {
  const crds: CrdSet = { crds: structuredClone(new Map(base.crds)) as any, validators: new Map(), ajv: base.ajv };
  extend(crds, 'ProxmoxCluster', (s) => s.properties.spec, 'settings', proposalSettingsSchema);
  extend(crds, 'ProxmoxClusterTemplate', (s) => s.properties.spec.properties.template.properties.spec, 'settings', proposalSettingsSchema);
  extend(crds, 'ProxmoxMachine', (s) => s.properties.spec, 'instance', proposalInstanceSchema);
  extend(crds, 'ProxmoxMachineTemplate', (s) => s.properties.spec.properties.template.properties.spec, 'instance', proposalInstanceSchema);
  return crds;
}
