import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { sampleApiDocument } from './api-document.js';

/**
 * `GET /openapi.json` (the document, outside /v1: no key) and `/docs`, its reference rendered by
 * swagger-ui from the swagger-ui-dist package, served by the app itself: the page loads nothing from
 * another origin (no CDN, and no validator badge, which would send the document to swagger.io).
 */
export function serveApiDocs(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => sampleApiDocument(app), {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'Interview API reference',
    swaggerOptions: { validatorUrl: null },
  });
}
