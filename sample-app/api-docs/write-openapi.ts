// `npm run openapi`: writes the sample app's OpenAPI document to openapi.json at the repository
// root. The app is created, not started: no port, no Redis needed; its SQLite database is a temporary file.
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../demo-config.js';
import { buildSampleOpenApiFile } from './openapi-file.js';

const file = join(repositoryRoot(), 'openapi.json');
writeFileSync(file, await buildSampleOpenApiFile());
console.log(`Wrote ${file}`);
