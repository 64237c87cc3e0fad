/**
 * `npm run json-schema`: writes schema/lab.schema.json, the JSON Schema of the lab description
 * for editors (e.g. `# yaml-language-server: $schema=../schema/lab.schema.json`). It is derived
 * from the same zod schema the loader validates with; a test keeps the committed file current.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { labJsonSchema } from '../modules/config/json-schema';
import { parseFlags, runCommand } from './lib/cli';

runCommand(() => {
  parseFlags(process.argv.slice(2), {}, 'npm run --silent json-schema', {
    about: 'Writes schema/lab.schema.json, the JSON Schema of the lab description for editors, from the schema the loader validates with.',
  });
  const file = join(__dirname, '../../schema/lab.schema.json');
  writeFileSync(file, labJsonSchema());
  process.stderr.write(`wrote ${file}\n`);
});
