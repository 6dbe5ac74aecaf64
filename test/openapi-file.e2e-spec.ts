import { readFileSync } from 'node:fs';
import type { OpenAPIObject } from '@nestjs/swagger';
import { buildSampleOpenApiFile } from '../sample-app/api-docs/openapi-file.js';
import { expectValidOpenApi } from './support/openapi.js';

const COMMITTED = new URL('../openapi.json', import.meta.url);

/** The committed openapi.json: the sample app's document, kept in step with the controllers. */
describe('openapi.json', () => {
  it('is the document the sample app’s controllers give today', async () => {
    const built = await buildSampleOpenApiFile();
    const committed = readFileSync(COMMITTED, 'utf8');
    expect(built === committed ? 'up to date' : 'openapi.json is out of date: run `npm run openapi`').toBe(
      'up to date',
    );
  });

  it('is a valid OpenAPI 3.1 document with the sessions and the host’s webhooks', async () => {
    const document = JSON.parse(readFileSync(COMMITTED, 'utf8')) as OpenAPIObject;
    await expectValidOpenApi(document);
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/sessions', '/v1/sessions/{id}']),
    );
    expect(Object.keys(document.webhooks ?? {})).toEqual([
      'result.ready',
      'result.updated',
      'webhook.test',
      'session.started',
      'session.completed',
    ]);
  });
});
