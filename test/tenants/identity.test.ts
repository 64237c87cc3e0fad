/**
 * Tenant login through the lab's identity provider (issue 39, modules/tenants/identity.ts), as
 * rendered: the AuthenticationConfiguration each tenant's API server reads, where the class puts it
 * in the KamajiControlPlane (through the class's own patches, validated against the pinned CRDs),
 * the tenant cluster's ClusterRoleBindings and the people's kubeconfig. A lab without `identity`
 * renders exactly as before.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseLab } from '../../modules/config/load';
import { planPlacement } from '../../modules/placement';
import { renderManagementConfig } from '../../modules/rendering';
import { renderTenants } from '../../modules/tenants';
import { applyClassPatches } from '../../modules/tenants/class-patches';
import { classTemplates } from '../../modules/tenants/cluster-class';
import { classPatches } from '../../modules/tenants/cluster-class-patches';
import {
  AUTHENTICATION_CONFIG_KEY,
  AUTHENTICATION_CONFIG_MAP,
  AUTHENTICATION_MOUNT_PATH,
  authenticationApiVersion,
  authenticationConfiguration,
} from '../../modules/tenants/identity';
import { validateManifest } from '../support/crds';
import { pinnedCrds, projectRoot } from './fixtures';

const identityText = readFileSync(resolve(projectRoot, 'examples/lab-identity.yaml'), 'utf8');
const lab = parseLab(identityText, 'examples/lab-identity.yaml');
const renderings = renderTenants(lab, planPlacement(lab));
const plainLab = parseLab(readFileSync(resolve(projectRoot, 'examples/lab.yaml'), 'utf8'), 'examples/lab.yaml');
const plain = renderTenants(plainLab, planPlacement(plainLab));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered objects are plain JSON read by path
type Any = any;

describe('tenant identity rendering', () => {
  it('each tenant API server gets the lab issuer, its client id as audience, its CA and the claim mappings', () => {
    const a = renderings.get('tenant-a')!.identity!;
    const config = JSON.parse((a.authentication as Any).data[AUTHENTICATION_CONFIG_KEY]);
    expect(config).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: {
            url: 'https://login.lab.example/realms/lab',
            audiences: ['kubernetes'],
            certificateAuthority: Buffer.from(lab.identity!.certificateAuthorityData!, 'base64').toString('utf8'),
          },
          claimMappings: { username: { claim: 'email', prefix: 'oidc:' }, groups: { claim: 'groups', prefix: 'oidc:' } },
        },
      ],
    });
    expect(config.jwt[0].issuer.certificateAuthority).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(a.authentication.metadata).toMatchObject({ name: AUTHENTICATION_CONFIG_MAP, namespace: 'tenant-a' });
  });

  it('v1 from Kubernetes 1.34 (GA), v1beta1 below and while an upgrade from a minor below runs', () => {
    expect(authenticationApiVersion({ kubernetesVersion: 'v1.35.4' })).toBe('apiserver.config.k8s.io/v1');
    expect(authenticationApiVersion({ kubernetesVersion: 'v1.34.0' })).toBe('apiserver.config.k8s.io/v1');
    expect(authenticationApiVersion({ kubernetesVersion: 'v1.33.4' })).toBe('apiserver.config.k8s.io/v1beta1');
    expect(authenticationApiVersion({ kubernetesVersion: 'v1.34.1', previous: { kubernetesVersion: 'v1.33.4' } })).toBe('apiserver.config.k8s.io/v1beta1');
    expect(authenticationConfiguration({ ...lab.identity!, certificateAuthorityData: undefined }, { kubernetesVersion: 'v1.35.4' })).not.toHaveProperty(
      'jwt.0.issuer.certificateAuthority',
    );
  });

  it("binds each tenant's groups, with the groups prefix, to cluster-admin, edit and view in its own cluster only", () => {
    const bindings = (name: string) => {
      const cm = renderings.get(name)!.identity!.access as Any;
      return Object.fromEntries(
        Object.values(cm.data as Record<string, string>)
          .map((text) => JSON.parse(text))
          .map((b: Any) => [b.roleRef.name, b.subjects.map((s: Any) => `${s.kind}:${s.name}`)]),
      );
    };
    expect(bindings('tenant-a')).toEqual({
      'cluster-admin': ['Group:oidc:team-a-admins'],
      edit: ['Group:oidc:team-a-developers'],
      view: ['Group:oidc:auditors'],
    });
    // No editors listed: the binding is there with no subject, so taking a group away is an update.
    expect(bindings('tenant-b')).toEqual({ 'cluster-admin': ['Group:oidc:team-b-admins'], edit: [], view: ['Group:oidc:auditors'] });
    // The prefix rule.
    expect(bindings('tenant-c')).toEqual({
      'cluster-admin': ['Group:oidc:team-c-admins'],
      edit: ['Group:oidc:team-c-editors'],
      view: ['Group:oidc:team-c-viewers'],
    });
    const crs = renderings.get('tenant-c')!.identity!.resourceSet as Any;
    expect(crs.spec.strategy).toBe('Reconcile');
    expect(crs.spec.clusterSelector.matchLabels).toEqual({ 'pvekaas.lab/tenant': 'tenant-c' });
    expect(validateManifest(crs, pinnedCrds())).toEqual([]);
  });

  it("the class mounts the Cluster's ConfigMap into Kamaji's kube-apiserver and passes --authentication-config, keeping the spread", () => {
    const cluster = renderings.get('tenant-a')!.cluster as Any;
    const vars = Object.fromEntries((cluster.spec.topology.variables as { name: string; value: unknown }[]).map((v) => [v.name, v.value]));
    expect(vars.tenantAuthentication).toEqual({ configMap: AUTHENTICATION_CONFIG_MAP });
    const template = structuredClone(classTemplates({ dataStoreName: 'default', multiInstance: 'secondary-clusters', identity: true }).controlPlane);
    applyClassPatches(classPatches('secondary-clusters', true), template, (m) => m.controlPlane === true, {
      ...vars,
      builtin: { cluster: { name: 'tenant-a', namespace: 'tenant-a' } },
    });
    const spec = (template as Any).spec.template.spec;
    expect(spec.apiServer).toEqual({
      extraArgs: [`--authentication-config=${AUTHENTICATION_MOUNT_PATH}/${AUTHENTICATION_CONFIG_KEY}`],
      extraVolumeMounts: [{ name: 'pvekaas-authentication', mountPath: AUTHENTICATION_MOUNT_PATH, readOnly: true }],
    });
    expect(spec.deployment.extraVolumes).toEqual([{ name: 'pvekaas-authentication', configMap: { name: AUTHENTICATION_CONFIG_MAP } }]);
    expect(spec.deployment.topologySpreadConstraints).toHaveLength(1);
    expect(validateManifest(template, pinnedCrds())).toEqual([]);
    // The class declares the variable and the patch only for a lab with an identity provider.
    const declared = (l: typeof lab) => (renderManagementConfig(l).clusterClass.clusterClass as Any).spec.variables.map((v: Any) => v.name);
    expect(declared(lab)).toContain('tenantAuthentication');
    expect(declared(plainLab)).not.toContain('tenantAuthentication');
  });

  it('the people kubeconfig logs in through the issuer with kubelogin and holds no secret', () => {
    const r = renderings.get('tenant-a')!;
    const kc = r.identity!.kubeconfig as Any;
    expect(kc.clusters[0].cluster).toEqual({ server: `https://${r.vip.vip}:6443`, 'certificate-authority': 'tenant-a-ca.crt' });
    expect(kc.users[0].user.exec).toMatchObject({ apiVersion: 'client.authentication.k8s.io/v1', command: 'kubectl' });
    expect(kc.users[0].user.exec.args).toEqual([
      'oidc-login',
      'get-token',
      '--oidc-issuer-url=https://login.lab.example/realms/lab',
      '--oidc-client-id=kubernetes',
      '--oidc-extra-scope=email',
      `--certificate-authority-data=${lab.identity!.certificateAuthorityData}`,
    ]);
    const text = JSON.stringify(kc);
    // The exec plugin only: no token, client key or certificate, password or client secret.
    expect(Object.keys(kc.users[0].user)).toEqual(['exec']);
    expect(text).not.toMatch(/"token"|client-key|client-certificate|password|client-secret|PRIVATE KEY/);
    expect(r.caFileCommand).toContain("get secret tenant-a-ca --output jsonpath='{.data.tls\\.crt}'");
  });

  it('without identity nothing changes; with it, no worker template changes (no machine rollout)', () => {
    for (const r of plain.values()) {
      expect(r.identity).toBeUndefined();
      expect(JSON.stringify(r.cluster)).not.toContain('tenantAuthentication');
    }
    const mds = (m: typeof plain) => [...m.values()].flatMap((r) => r.machineDeployments.map((md) => md.name)).sort();
    expect(mds(renderings)).toEqual(mds(plain));
  });

  it('an identity with a schema mistake is reported alone: its tenants are not told the lab has no identity', () => {
    const doc = parse(identityText);
    doc.identity.issuer = 'https://login.lab.example/${var.x}';
    let message = '';
    try {
      parseLab(stringify(doc), 'lab.yaml');
    } catch (e) {
      message = String((e as Error).message);
    }
    expect(message).toMatch(/identity\.issuer: "\$\{" starts a Terraform template sequence/);
    expect(message).not.toMatch(/no identity provider/);
  });

  it('a tenant access without identity, and a CA that does not parse, are refused with file, path and fix', () => {
    const doc = parse(identityText);
    delete doc.identity;
    expect(() => parseLab(stringify(doc), 'lab.yaml')).toThrow(/tenants\[0\]\.access|tenants\.0\.access/);
    const bad = parse(identityText);
    bad.identity.certificateAuthorityData = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64');
    bad.identity.issuer = 'http://login.lab.example';
    let message = '';
    try {
      parseLab(stringify(bad), 'lab.yaml');
    } catch (e) {
      message = String((e as Error).message);
    }
    // Every problem at once.
    expect(message).toMatch(/identity\.issuer/);
    expect(message).toMatch(/identity\.certificateAuthorityData/);
  });
});
