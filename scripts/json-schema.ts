/**
 * `npm run json-schema`: writes schema/lab.schema.json, the JSON Schema of the lab description
 * for editors (e.g. `# yaml-language-server: $schema=../schema/lab.schema.json`), and
 * docs/lab-reference.md, the field reference generated from it. Both derive from the same zod
 * schema the loader validates with; tests keep the committed files current.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { labJsonSchema } from '../modules/config/json-schema';
import { labReferenceMarkdown } from '../modules/config/lab-reference';
import { parseFlags, runCommand } from './lib/cli';

runCommand(() => {
  parseFlags(process.argv.slice(2), {}, 'npm run --silent json-schema', {
    about:
      'Writes schema/lab.schema.json, the JSON Schema of the lab description for editors, and docs/lab-reference.md, the field reference, ' +
      'both from the schema the loader validates with.',
  });
  const file = join(__dirname, '../../schema/lab.schema.json');
  writeFileSync(file, labJsonSchema());
  process.stderr.write(`wrote ${file}\n`);
  const reference = join(__dirname, '../../docs/lab-reference.md');
  writeFileSync(reference, labReferenceMarkdown());
  process.stderr.write(`wrote ${reference}\n`);
});
