/**
 * The rule table: every validation rule of a lab description that relates several fields, once,
 * with its home (the one file that defines it). `checkLab` walks it; docs/rules.md is generated
 * from it (test/config/rules.test.ts keeps the page true and fires every rule with its own fixture,
 * test/config/rule-fixtures.ts). Shape rules (types, formats, bounds) are the schema's
 * (modules/config/schema.ts) and strings everywhere are checked by modules/config/safety.ts before
 * these run.
 */
import type { Problem } from './problems';
import { runRules, type LabRule } from './rule';
import type { Lab } from './schema';
import { INSTANCE_RULES } from './instance-rules';
import { LAB_RULES } from './rules';
import { QUOTA_RULES } from './quota';
import { INSTANCE_NETWORK_RULES } from './instance-network-rules';
import { MANAGEMENT_RULES } from './management-rules';
import { SERVER_RULES } from './server-rules';
import { SECURITY_RULES } from './security-rules';
import { LAYER2_RULES } from './layer2-rules';
import { IDENTITY_RULES } from './identity-rules';
import { STORAGE_RULES } from './storage-rules';

/** The rules, by home, in the order `checkLab` runs them. */
export const RULE_HOMES: readonly { home: string; rules: readonly LabRule[] }[] = [
  { home: 'modules/config/instance-rules.ts', rules: INSTANCE_RULES },
  { home: 'modules/config/rules.ts', rules: LAB_RULES },
  { home: 'modules/config/quota.ts', rules: QUOTA_RULES },
  { home: 'modules/config/instance-network-rules.ts', rules: INSTANCE_NETWORK_RULES },
  { home: 'modules/config/management-rules.ts', rules: MANAGEMENT_RULES },
  { home: 'modules/config/server-rules.ts', rules: SERVER_RULES },
  { home: 'modules/config/security-rules.ts', rules: SECURITY_RULES },
  { home: 'modules/config/layer2-rules.ts', rules: LAYER2_RULES },
  { home: 'modules/config/identity-rules.ts', rules: IDENTITY_RULES },
  { home: 'modules/config/storage-rules.ts', rules: STORAGE_RULES },
];

/** Every rule, each once. */
export const RULE_TABLE: readonly LabRule[] = RULE_HOMES.flatMap((h) => h.rules);

/** Every problem of every rule of the table, each tagged with its rule id. */
export function checkLab(lab: Lab): Problem[] {
  return runRules(lab, RULE_TABLE);
}
