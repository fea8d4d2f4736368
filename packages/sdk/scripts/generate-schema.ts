// Writes schema/session-protocol-v2.schema.json from the zod schemas. Run: npm run schema
import { writeFileSync } from 'node:fs';
import { sessionMessageJsonSchema } from '../src/protocol/jsonSchema.js';

const target = new URL('../schema/session-protocol-v2.schema.json', import.meta.url);
writeFileSync(target, JSON.stringify(sessionMessageJsonSchema(), null, 2) + '\n');
process.stdout.write(`wrote ${target.pathname}\n`);
