/**
 * Issue 26 item 3: a tenant stack's Terraform state holds its own CAPMOX token and no other
 * tenant's. A data source's whole result is stored in the state of the stack that reads it, so
 * what a tenant stack's `data.kubernetes_secret_v1` reads is in its state — with one Secret per
 * instance holding every tenant's keys, every tenant stack held every token of its instances.
 *
 * Checked two ways on the example lab, synthesized with the real App wiring:
 *   - the synthesized files: each tenant stack's data sources name only Secrets the management
 *     stack fills with that tenant's own token (its cross-stack references);
 *   - a simulated state: the instance stacks' token outputs given distinct values (as tofu would
 *     store them: `<user>!<name>` and `<user>!<name>=<secret>`), the management stack's Secrets
 *     resolved from them, and each tenant stack's data sources and resources resolved from those
 *     Secrets with the lab twin's expression evaluator (twin/stack-objects.ts) — the
 *     state's content — then grepped for every other tenant's token id and secret.
 */
import { readStack, resolveExpressions, type ExpressionSources, type StackContents } from '../../twin/stack-objects';
import { exampleLab, synthesize, type Synthesized } from '../management/synth';

let synth: Synthesized;
const tenants = ['tenant-a', 'tenant-b', 'tenant-c'];
const instances = ['pmox-fra', 'pmox-txl'];
/** The secret tofu would hold for a tenant's token on an instance: distinct per pair. */
const secretOf = (instance: string, tenant: string) => `00000000-secret-${instance}-${tenant}`;

beforeAll(() => {
  synth = synthesize(exampleLab());
});
afterAll(() => synth?.cleanup());

/** The outputs of an instance stack's state: each output's expression, evaluated on made-up token values. */
function instanceOutputs(instance: string): Record<string, unknown> {
  const config = synth.stack(`proxmox-${instance}`);
  const tokens = config.resource.proxmox_user_token as Record<string, { user_id: string; token_name: string }>;
  const outputs: Record<string, unknown> = {};
  for (const [name, output] of Object.entries(config.output as Record<string, { value: unknown }>)) {
    const m = typeof output.value === 'string' ? /^\$\{proxmox_user_token\.([^.]+)\.(id|value)\}$/.exec(output.value) : null;
    if (!m) continue;
    const t = tokens[m[1]];
    const userId = t.user_id.replace(/^\$\{.*\}$/, 'capmox@pve');
    const tenant = t.token_name.replace(/^tenant-/, '');
    outputs[name] = m[2] === 'id' ? `${userId}!${t.token_name}` : `${userId}!${t.token_name}=${secretOf(instance, tenant)}`;
  }
  return outputs;
}

function sourcesFor(stack: StackContents, secrets: Map<string, Record<string, string>>): ExpressionSources {
  return {
    remoteStateOutputs: (dataName) => {
      const path = String(stack.config.data?.terraform_remote_state?.[dataName]?.config?.path ?? '');
      const instance = instances.find((i) => path.endsWith(`/proxmox-${i}.tfstate`));
      if (!instance) throw new Error(`${stack.stack}: remote state ${dataName} is no instance stack's (${path})`);
      return instanceOutputs(instance);
    },
    secretData: async (namespace, name) => {
      const data = secrets.get(`${namespace}/${name}`);
      if (!data) throw new Error(`${stack.stack}: no Secret ${namespace}/${name} in the management stack`);
      return data;
    },
  };
}

/** The management stack's Secrets, by namespace/name, their data resolved on the instance stacks' made-up state. */
async function managementSecrets(): Promise<Map<string, Record<string, string>>> {
  const management = readStack(synth.dir, 'management');
  const secrets = new Map<string, Record<string, string>>();
  for (const [, r] of Object.entries(management.config.resource.kubernetes_secret_v1 as Record<string, any>)) {
    const data = (await resolveExpressions(r.data ?? {}, management, sourcesFor(management, secrets))) as Record<string, string>;
    secrets.set(`${r.metadata.namespace}/${r.metadata.name}`, data);
  }
  return secrets;
}

/** What `tofu apply` of a tenant stack would keep in its state of the credentials: every data source's data, every Secret copy's data. */
async function simulatedState(tenant: string, secrets: Map<string, Record<string, string>>): Promise<Record<string, unknown>> {
  const stack = readStack(synth.dir, `tenant-${tenant}`);
  const sources = sourcesFor(stack, secrets);
  const state: Record<string, unknown> = {};
  for (const [name, d] of Object.entries((stack.config.data?.kubernetes_secret_v1 ?? {}) as Record<string, any>)) {
    const md = (await resolveExpressions(d.metadata, stack, sources)) as { name: string; namespace: string };
    state[`data.kubernetes_secret_v1.${name}`] = { metadata: md, data: await sources.secretData(md.namespace, md.name) };
  }
  for (const [name, r] of Object.entries((stack.config.resource?.kubernetes_secret_v1 ?? {}) as Record<string, any>)) {
    state[`kubernetes_secret_v1.${name}`] = await resolveExpressions(r, stack, sources);
  }
  return state;
}

describe('a tenant stack reads, and keeps in its state, its own CAPMOX token only', () => {
  it('gives each tenant its own Secret per instance in capmox-system, holding url, token and secret of that tenant alone', () => {
    const secrets = Object.values(synth.stack('management').resource.kubernetes_secret_v1) as any[];
    const byName = Object.fromEntries(secrets.map((s) => [s.metadata.name, s]));
    // tenant-a and tenant-b on pmox-txl, tenant-c on both (the example's placement).
    expect(Object.keys(byName).sort()).toEqual([
      'capmox-pmox-fra-credentials.tenant-c',
      'capmox-pmox-txl-credentials.tenant-a',
      'capmox-pmox-txl-credentials.tenant-b',
      'capmox-pmox-txl-credentials.tenant-c',
    ]);
    for (const s of secrets) {
      const tenant = s.metadata.name.split('.')[1];
      expect(Object.keys(s.data).sort()).toEqual(['secret', 'token', 'url']);
      // Each value a reference to that tenant's token resource, no other.
      for (const key of ['token', 'secret']) {
        expect(s.data[key]).toContain(`capmox_token-${tenant}_`);
        for (const other of tenants.filter((t) => t !== tenant)) expect(s.data[key]).not.toContain(`capmox_token-${other}_`);
      }
    }
  });

  it.each(tenants)('%s: the synthesized data sources name only its own Secrets', (tenant) => {
    const data = synth.stack(`tenant-${tenant}`).data?.kubernetes_secret_v1 ?? {};
    const names = Object.values(data as Record<string, any>)
      .map((d) => `${d.metadata.namespace}/${d.metadata.name}`)
      .sort();
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(name).toMatch(new RegExp(`^capmox-system/capmox-pmox-(txl|fra)-credentials\\.${tenant}$`));
  });

  it.each(tenants)("%s: a simulated state of the stack holds its own token id and secret and no other tenant's", async (tenant) => {
    const secrets = await managementSecrets();
    const state = JSON.stringify(await simulatedState(tenant, secrets));
    const mine = instances.filter((i) => state.includes(secretOf(i, tenant)));
    expect(mine.length).toBeGreaterThan(0);
    expect(state).toContain(`capmox@pve!tenant-${tenant}`);
    for (const other of tenants.filter((t) => t !== tenant)) {
      expect({ tenant, other, tokenId: state.includes(`capmox@pve!tenant-${other}`) }).toEqual({ tenant, other, tokenId: false });
      for (const instance of instances)
        expect({ tenant, other, instance, secret: state.includes(secretOf(instance, other)) }).toEqual({ tenant, other, instance, secret: false });
    }
  });

  it('the simulated state is the real thing: the copy in the tenant namespace holds the token CAPMOX uses', async () => {
    const state = (await simulatedState('tenant-a', await managementSecrets())) as Record<string, any>;
    const copy = Object.entries(state).find(([k]) => k.startsWith('kubernetes_secret_v1.'))![1];
    expect(copy.data).toMatchObject({
      url: 'https://pmox-txl.lab.example:8006',
      token: 'capmox@pve!tenant-tenant-a',
      secret: secretOf('pmox-txl', 'tenant-a'),
    });
  });
});
