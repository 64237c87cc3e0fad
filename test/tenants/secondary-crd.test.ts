/**
 * The static control plane CRD as committed (crds/pvekaas/v1alpha1/static-control-plane.yaml) is the
 * one modules/tenants/static-control-plane.ts defines, and it has what CAPI v1.12 needs of a
 * control-plane reference: the contract label, the defaulted status fields, and no spec.version.
 * The server-side proof (defaults applied on every read) is test/kube/static-control-plane.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  STATIC_CONTROL_PLANE_FILE,
  staticControlPlaneClusterRole,
  staticControlPlaneCrd,
  staticControlPlaneFile,
} from '../../modules/tenants/static-control-plane';
import { projectRoot } from './fixtures';

describe('the static control plane CRD', () => {
  it('is committed exactly as the module defines it, with a header naming pvekaas as its source', () => {
    const text = readFileSync(join(projectRoot, STATIC_CONTROL_PLANE_FILE), 'utf8');
    expect(text).toBe(staticControlPlaneFile());
    expect(text.split('\n')[0]).toMatch(/^# Source: pvekaas /);
    const docs = parseAllDocuments(text)
      .map((d) => d.toJS())
      .filter((d) => d);
    expect(docs).toEqual([staticControlPlaneCrd(), staticControlPlaneClusterRole()]);
  });

  it('carries the CAPI contract label, defaults an initialized, externally managed status, and a version with no default', () => {
    const crd = staticControlPlaneCrd() as any;
    expect(crd.metadata.labels['cluster.x-k8s.io/v1beta2']).toBe('v1alpha1');
    const [version] = crd.spec.versions;
    expect(crd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true });
    expect(version.subresources).toBeUndefined();
    const schema = version.schema.openAPIV3Schema;
    expect(schema.properties.status.default).toEqual({});
    expect(schema.properties.status.properties.initialization.default).toEqual({});
    expect(schema.properties.status.properties.initialization.properties.controlPlaneInitialized.default).toBe(true);
    expect(schema.properties.status.properties.externalManagedControlPlane.default).toBe(true);
    expect(Object.keys(schema.properties.spec.properties).sort()).toEqual(['controlPlaneEndpoint', 'version']);
    // status.version comes from the mirror (the primary KamajiControlPlane's); never a default, which
    // would tell CAPI's preflight checks a version no control plane runs.
    expect(schema.properties.status.properties.version).toEqual({ type: 'string', description: expect.any(String) });
    expect(schema.properties.spec.properties.version).toEqual({ type: 'string', description: expect.any(String) });
  });

  it('lets the CAPI manager read and own static control planes through its aggregated role, nothing more', () => {
    const role = staticControlPlaneClusterRole() as any;
    expect(role.metadata.labels['cluster.x-k8s.io/aggregate-to-manager']).toBe('true');
    expect(role.rules).toEqual([
      { apiGroups: ['controlplane.pvekaas.lab'], resources: ['staticcontrolplanes'], verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'] },
    ]);
  });
});
