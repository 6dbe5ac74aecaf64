import type { INestApplication } from '@nestjs/common';
import { generateSchema, type OpenAPIObject } from '@nestjs/swagger';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { EventSchema } from './event.schema.js';
import { API_KEY_SECURITY, API_KEY_SECURITY_SCHEME } from './security-scheme.js';
import { webhookOperation } from './webhook-operation.js';

/** OpenAPI 3.1 is the first version with a `webhooks` section. */
function holdsWebhooks(version: string): boolean {
  const [major, minor] = version.split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 1);
}

/**
 * Adds to an OpenAPI 3.1 document the module's `webhooks` section: one POST per event type, the
 * built-in ones and the host's (as the app's resolved options have them), with the event schema and
 * the API key's security scheme where the document lacks them. A 3.0 document is refused: it has no
 * webhooks section, and @nestjs/swagger would fold them into `paths` as if they were routes.
 */
export function addInterviewApiWebhooks(document: OpenAPIObject, app: INestApplication): OpenAPIObject {
  if (!holdsWebhooks(document.openapi)) {
    throw new Error(
      `addInterviewApiWebhooks needs an OpenAPI 3.1 document; this one is ${document.openapi}. ` +
        "Build it with new DocumentBuilder().setOpenAPIVersion('3.1.0').",
    );
  }
  const options = app.get<symbol, ResolvedOptions>(INTERVIEW_API_OPTIONS, { strict: false });
  const components = (document.components ??= {});
  components.schemas = { ...generateSchema(EventSchema).schemas, ...components.schemas };
  components.securitySchemes = { [API_KEY_SECURITY]: API_KEY_SECURITY_SCHEME, ...components.securitySchemes };
  document.webhooks = {
    ...document.webhooks,
    ...Object.fromEntries(
      options.eventTypes.map((type) => [type, { post: webhookOperation(type, options.webhooks.timeoutMs) }]),
    ),
  };
  return document;
}
