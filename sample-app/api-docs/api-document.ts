import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { createInterviewApiDocument } from '../../lib/index.js';

/**
 * The sample's API as its customers see it: the module's routes, the host's sessions and the
 * webhooks. Nothing in it depends on where the app runs, so that `openapi.json` is one file.
 */
export function sampleApiDocument(app: INestApplication): OpenAPIObject {
  return createInterviewApiDocument(app, { title: 'Interview API', version: '1' });
}
