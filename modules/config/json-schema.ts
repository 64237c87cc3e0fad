import { z } from 'zod';
import { labSchema } from './schema';

/** The lab description's JSON Schema (input side: defaults are optional), as stable text. */
export function labJsonSchema(): string {
  const schema = z.toJSONSchema(labSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...schema, title: 'pvekaas lab description', $id: 'https://pvekaas.dev/schema/lab.schema.json' }, null, 2)}\n`;
}
