// Validates the OpenAPI document in the file named by the first argument with swagger-parser, in a
// process of its own: swagger-parser loads an ES module with require(), which Jest's module system
// does not. Exits 0 when valid, else prints why and exits 1.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';

try {
  await SwaggerParser.validate(JSON.parse(readFileSync(process.argv[2], 'utf8')));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
