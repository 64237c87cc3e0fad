/**
 * A read client for the management cluster from a kubeconfig: which file (`--kubeconfig`, else
 * `KUBECONFIG`, else the lab's `management.kubernetes.configPath`), which context (`--context`,
 * else the lab's `context` when the file is the lab's, else the file's `current-context`), and its
 * server, CA and credentials (client certificate and key, or a bearer token; inline `-data` or by
 * path). Nothing of the credentials is ever put in a message: errors name the file, the context and
 * what is missing.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import type { Lab } from '../../modules/config/schema';
import { KubeClient } from './kube-apiserver';
import { UserError } from './cli';

export interface ManagementAccess {
  client: KubeClient;
  /** The kubeconfig file as given (for messages). */
  file: string;
  context: string;
  server: string;
}

const expand = (path: string) => resolve(path.replace(/^~(?=$|\/)/, homedir()));

/** Where the kubeconfig comes from: the flag, the environment, or the lab. */
export function kubeconfigSource(
  lab: Lab,
  flags: { kubeconfig?: string; context?: string },
  env: Readonly<Record<string, string | undefined>>,
): { file: string; context?: string; from: string } {
  if (flags.kubeconfig) return { file: flags.kubeconfig, context: flags.context, from: '--kubeconfig' };
  const fromEnv = env.KUBECONFIG?.split(':').find((p) => p !== '');
  if (fromEnv) return { file: fromEnv, context: flags.context, from: 'KUBECONFIG' };
  const access = lab.management.kubernetes;
  if ('configPath' in access) return { file: access.configPath, context: flags.context ?? access.context, from: 'management.kubernetes.configPath' };
  throw new UserError(
    'no kubeconfig for the management cluster: management.kubernetes gives a host (its token is for Terraform), and neither --kubeconfig nor KUBECONFIG is set\n' +
      '  fix: pass --kubeconfig <file> with read access to the tenants’ namespaces (or set KUBECONFIG)',
  );
}

/**
 * The entries a kubeconfig gives for `contextName` (default: its current-context): the context,
 * its cluster and its user (`{}` when it names none), each looked up by name and still to be
 * checked by the caller. `fail` words a file that cannot be read or parsed.
 */
export function kubeconfigEntries(
  read: () => string,
  contextName: string | undefined,
  fail: (why: string) => Error,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a kubeconfig read by path (clusters, contexts, users), each step checked by the caller
): { contextName?: string; context?: any; cluster?: any; user: any } {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  let config: any;
  try {
    config = parse(read());
  } catch (e) {
    throw fail(`cannot be read (${(e as Error).message.split('\n')[0]})`);
  }
  const named = (list: unknown, name: unknown) => (Array.isArray(list) ? list.find((x) => x?.name === name) : undefined);
  const current = contextName ?? config?.['current-context'];
  const context = named(config?.contexts, current)?.context;
  const cluster = named(config?.clusters, context?.cluster)?.cluster;
  return { contextName: current, context, cluster, user: named(config?.users, context?.user)?.user ?? {} };
}

/**
 * A client for the management cluster through the kubeconfig `file` (or its `text`, e.g. read from
 * a Secret; `file` then names where it came from), context `context` (default: its current-context).
 */
export function managementAccess(source: { file: string; context?: string; from: string; text?: string }): ManagementAccess {
  const fail = (why: string) =>
    new UserError(
      `the kubeconfig ${source.file} (${source.from}) ${why}\n  fix: give a kubeconfig of the management cluster (--kubeconfig <file>, --context <name>)`,
    );
  const { contextName, context, cluster, user } = kubeconfigEntries(() => source.text ?? readFileSync(expand(source.file), 'utf8'), source.context, fail);
  if (!contextName) throw fail('has no current-context: pass --context <name>');
  if (!context) throw fail(`has no context ${contextName}`);
  if (typeof cluster?.server !== 'string') throw fail(`has no cluster with a server for context ${contextName}`);
  if (cluster['insecure-skip-tls-verify'] === true)
    throw fail(`skips TLS verification for context ${contextName}: give the cluster's certificate-authority instead`);
  if (user.exec || user['auth-provider']) throw fail(`authenticates context ${contextName} through a plugin, which pvekaas does not run`);
  const data = (inline: unknown, file: unknown, what: string): string | undefined => {
    if (typeof inline === 'string') return Buffer.from(inline, 'base64').toString('utf8');
    if (typeof file !== 'string') return undefined;
    try {
      return readFileSync(expand(file), 'utf8');
    } catch (e) {
      throw fail(`names a ${what} file that cannot be read (${(e as Error).message.split('\n')[0]})`);
    }
  };
  const tls = {
    ca: data(cluster['certificate-authority-data'], cluster['certificate-authority'], 'certificate authority'),
    cert: data(user['client-certificate-data'], user['client-certificate'], 'client certificate'),
    key: data(user['client-key-data'], user['client-key'], 'client key'),
  };
  const token = typeof user.token === 'string' ? user.token : typeof user.tokenFile === 'string' ? data(undefined, user.tokenFile, 'token')?.trim() : undefined;
  return { client: new KubeClient(cluster.server, tls, token), file: source.file, context: contextName, server: cluster.server };
}
