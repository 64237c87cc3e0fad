/** Helpers for the construct tests: synthesize one scratch stack and read its resources back. */
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import type { TerraformStack } from 'cdktf';
import { synthStack } from '../support/synth-stack';

export const synthJson = (build: (stack: TerraformStack) => void): any => JSON.parse(synthStack(false, build));

/** A kubernetes provider for constructs that need one (its alias shows in `provider`). */
export const kubernetes = (stack: TerraformStack) => new KubernetesProvider(stack, 'k8s', { configPath: '~/.kube/mgmt', alias: 'mgmt' });

/** The resources of one type, by Terraform name, without cdktf's metadata. */
export function resourcesOf(json: any, type: string): Record<string, any> {
  return Object.fromEntries(
    Object.entries(json.resource?.[type] ?? {}).map(([k, v]: [string, any]) => {
      const { '//': _meta, ...rest } = v;
      return [k, rest];
    }),
  );
}
