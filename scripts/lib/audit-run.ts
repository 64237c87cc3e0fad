/**
 * The drift audit as a function (the command and the tests call it): reads every instance of the
 * description with its read-only token, compares with the plan, and returns the report and the
 * exit code: 0 no drift, 2 drift, 1 when an instance could not be read or a token is missing.
 */
import type { Lab } from '../../modules/config/schema';
import { auditLab, renderAuditMarkdown, type AuditReport, type ObservedInstance } from '../../modules/foresight/audit';
import { planPlacement } from '../../modules/placement';
import { atLabFile } from '../../modules/config/load';
import { readInstance } from './pve-read';

export interface AuditRun {
  code: 0 | 1 | 2;
  report: AuditReport;
  /** Instances that could not be read, with why (never a token). */
  errors: string[];
  markdown: string;
}

/**
 * Tokens are `user@realm!name=secret` by instance name. `label` names the description in the
 * report (the file the user gave).
 */
export async function runAudit(lab: Lab, tokens: Readonly<Record<string, string>>, label: string): Promise<AuditRun> {
  const plan = atLabFile(label, () => planPlacement(lab));
  const errors: string[] = [];
  const observed: ObservedInstance[] = [];
  await Promise.all(
    lab.proxmox.instances.map(async (instance) => {
      const token = tokens[instance.name];
      if (!token) {
        errors.push(
          `${instance.name}: no read-only token (give one per instance in PVEKAAS_AUDIT_TOKENS or --tokens, e.g. {"${instance.name}": "auditor@pve!audit=<secret>"})`,
        );
        return;
      }
      try {
        observed.push(await readInstance({ instance: instance.name, endpoint: instance.endpoint, token, insecure: instance.insecure }));
      } catch (e) {
        errors.push(`${instance.name}: ${(e as Error).message.split(token).join('<token>')}`);
      }
    }),
  );
  const order = new Map(lab.proxmox.instances.map((i, n) => [i.name, n]));
  observed.sort((a, b) => order.get(a.instance)! - order.get(b.instance)!);
  errors.sort();
  const report = auditLab(lab, plan, observed);
  let markdown = renderAuditMarkdown(report, label);
  if (errors.length > 0) markdown += `\n## Not read\n\n${errors.map((e) => `- ${e}`).join('\n')}\n`;
  const code = errors.length > 0 ? 1 : report.findings.length > 0 ? 2 : 0;
  return { code, report, errors, markdown };
}
