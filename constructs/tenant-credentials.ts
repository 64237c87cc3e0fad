import { DataKubernetesSecretV1 } from '@cdktf/provider-kubernetes/lib/data-kubernetes-secret-v1';
import { SecretV1 } from '@cdktf/provider-kubernetes/lib/secret-v1';
import { Fn, type ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';

export interface TenantCredentialsProps {
  /** The tenant whose own token is copied (and nothing else). */
  readonly tenant: string;
  /** The management stack's CAPMOX credentials Secret of this tenant on the instance (`capmoxTenantCredentialsSecretName`). */
  readonly source: { readonly name: string; readonly namespace: string };
  /** The copy in the tenant namespace that the tenant's ProxmoxCluster refers to. */
  readonly target: { readonly name: string; readonly namespace: string };
  /** Labels of the copy (CAPMOX's secret-type label among them). */
  readonly labels: Record<string, string>;
  /** Non-secret keys written beside them from the lab: CAPMOX's `insecure` and `root_ca`. @default none */
  readonly tlsData?: Readonly<Record<string, string>>;
  /** Created after these (the tenant namespace). @default none */
  readonly dependsOn?: ITerraformDependable[];
}

/**
 * A tenant's CAPMOX credentials for one instance: the url and **its own** token (keys url, token,
 * secret, as CAPMOX wants them), taken from the tenant's own Secret of the instance in CAPMOX's
 * namespace, which holds that token and nothing else: a data source's whole `data` is stored in
 * the reading stack's state, so the tenant stack's state holds this tenant's token only. That token's VM privileges cover the tenant's own pool only, so
 * whoever reads this namespace can reach this tenant's VMs and nothing else. CAPMOX makes the
 * ProxmoxCluster an owner of the Secret it uses, and owner references only resolve within one
 * namespace, so the Secret must sit next to the ProxmoxCluster. The values are read from the
 * management cluster at apply time; they live in Terraform state (as in the management stack's),
 * never in the synthesized files. A tenant without its Secret (its instance stack and the
 * management stack not applied since the tenant was added) fails the apply: `lookup` finds no
 * token in the data source (it never falls back to another Secret).
 */
export class TenantCredentials extends Construct {
  readonly secret: SecretV1;

  constructor(scope: Construct, id: string, props: TenantCredentialsProps) {
    super(scope, id);
    const source = new DataKubernetesSecretV1(this, 'source', {
      metadata: { name: props.source.name, namespace: props.source.namespace },
    });
    this.secret = new SecretV1(this, 'copy', {
      metadata: { name: props.target.name, namespace: props.target.namespace, labels: props.labels },
      data: {
        url: Fn.lookup(source.getStringMapAttribute('data'), 'url'),
        token: Fn.lookup(source.getStringMapAttribute('data'), 'token'),
        secret: Fn.lookup(source.getStringMapAttribute('data'), 'secret'),
        ...props.tlsData,
      },
      type: 'Opaque',
      dependsOn: props.dependsOn,
    });
  }
}
