import { fixHcl } from '../../scripts/lib/hcl-fixups';

describe('the HCL repairs', () => {
  it('writes depends_on entries as bare references', () => {
    const out = fixHcl('resource "a" "b" {\ndepends_on = [\n"proxmox_virtual_environment_pool.pool-capi",\n"helm_release.cert-manager"\n]\n}\n');
    expect(out).toContain('    proxmox_virtual_environment_pool.pool-capi,\n    helm_release.cert-manager\n  ]');
    expect(out).not.toContain('"proxmox_virtual_environment_pool.pool-capi"');
  });

  it('writes a resource provider as a bare reference, and leaves provider blocks alone', () => {
    const out = fixHcl('provider "kubernetes" {\nconfig_path = "x"\n}\nresource "kubernetes_manifest" "m" {\nprovider = "kubernetes"\n}\n');
    expect(out).toContain('provider "kubernetes" {');
    expect(out).toContain('  provider = kubernetes\n');
  });

  it('leaves quoted strings elsewhere alone, braces inside strings included', () => {
    const text = 'locals {\nx = [\n"a.b",\n"${var.x} {"\n]\n}\n';
    expect(fixHcl(text)).toBe('locals {\n  x = [\n    "a.b",\n    "${var.x} {"\n  ]\n}\n');
  });

  it('indents by nesting depth and keeps at most one blank line', () => {
    expect(fixHcl('terraform {\nbackend "local" {\npath = "x"\n}\n\n\n\n}\n')).toBe('terraform {\n  backend "local" {\n    path = "x"\n  }\n\n}\n');
  });
});
