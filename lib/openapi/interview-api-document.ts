import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { InterviewApiModule } from '../interview-api.module.js';
import { addInterviewApiWebhooks } from './interview-api-webhooks.js';
import { API_KEY_SECURITY, API_KEY_SECURITY_SCHEME } from './security-scheme.js';

/** What the module's own document is titled and where it is served; each optional. */
export interface InterviewApiDocumentOptions {
  /** @default 'Interview API' */
  title?: string;
  /** The document's `info.version`. @default '1' */
  version?: string;
  /** The base URL of the API, as the document's one server; none by default. */
  serverUrl?: string;
}

const DESCRIPTION =
  'The /v1 API: API keys with scopes, webhook endpoints and their deliveries, the event feed and the ' +
  'host’s resources, with the webhooks its endpoints receive. Every failure answers in the error ' +
  'envelope; lists are cursor-paginated.';

/**
 * The module's own OpenAPI 3.1 document for an app: its routes and the host's resources (as the
 * app maps them, under a global prefix too), and a `webhooks` section with one entry per event
 * type. A host's other routes, its own @ApiV1Controller ones included, are not in it.
 */
export function createInterviewApiDocument(
  app: INestApplication,
  options: InterviewApiDocumentOptions = {},
): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(options.title ?? 'Interview API')
    .setDescription(DESCRIPTION)
    .setVersion(options.version ?? '1')
    .addBearerAuth(API_KEY_SECURITY_SCHEME, API_KEY_SECURITY);
  if (options.serverUrl !== undefined) config.addServer(options.serverUrl);
  const document = SwaggerModule.createDocument(app, config.build(), { include: [InterviewApiModule] });
  return addInterviewApiWebhooks(document, app);
}
