import { getSchemaPath, type OperationObject, type SchemaObject } from '@nestjs/swagger';
import { EventSchema } from './event.schema.js';

/** The built-in event whose `data.object` the module writes itself: the endpoint tested. */
const TEST_EVENT_OBJECT: SchemaObject = {
  type: 'object',
  required: ['id', 'object', 'livemode'],
  properties: {
    id: { type: 'string', description: 'The endpoint’s id.' },
    object: { type: 'string', enum: ['webhook_endpoint'] },
    livemode: { type: 'boolean' },
  },
};

const VERIFYING =
  'Verify each request before acting on it, with the endpoint’s secret, as Standard Webhooks ' +
  '(https://www.standardwebhooks.com/) has it: the `standardwebhooks` and `svix` libraries do. ' +
  'The signature is the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` over the ' +
  'raw body bytes, keyed with the base64-decoded part of the secret after `whsec_`; refuse a ' +
  'timestamp far from now. Retries and replays reuse the event id in `webhook-id`: skip ids ' +
  'already processed. Order is not guaranteed.';

/** What the built-in types mean; the host's own types are its to describe. */
const BUILT_IN_MEANINGS: Readonly<Record<string, string>> = {
  'result.ready': 'A result exists.',
  'result.updated': 'A result changed.',
};

/** To whom an event of `type` is sent. */
function recipients(type: string): string {
  if (type === 'webhook.test') {
    return 'Sent by `POST /v1/webhook_endpoints/{id}/test`, to that endpoint only.';
  }
  const meaning = BUILT_IN_MEANINGS[type];
  const sent = `Sent to each enabled endpoint of the event’s account and mode that subscribes to \`${type}\` (or to \`*\`).`;
  return meaning === undefined ? sent : `${meaning} ${sent}`;
}

/** The event body of one type: the event schema with its `type`, and `data.object` where it is known. */
function eventBody(type: string): SchemaObject {
  const narrowed: SchemaObject = { type: 'object', properties: { type: { type: 'string', enum: [type] } } };
  if (type === 'webhook.test') {
    narrowed.properties!.data = { type: 'object', properties: { object: TEST_EVENT_OBJECT } };
  }
  return { allOf: [{ $ref: getSchemaPath(EventSchema) }, narrowed] };
}

/**
 * What a receiver gets for events of `type`: a POST of the event's JSON with the Standard Webhooks
 * headers, answered with any 2xx within `timeoutMs` (docs/api-contract.md, Webhooks as the receiver
 * sees them).
 */
export function webhookOperation(type: string, timeoutMs: number): OperationObject {
  const seconds = timeoutMs / 1000;
  return {
    summary: `The \`${type}\` event`,
    description: `${recipients(type)} ${VERIFYING}`,
    operationId: `webhook${type.replace(/(?:^|[^a-z0-9]+)([a-z0-9])/gi, (_, letter: string) => letter.toUpperCase())}`,
    tags: ['Webhooks'],
    security: [],
    parameters: [
      {
        name: 'webhook-id',
        in: 'header',
        required: true,
        description: 'The event id, the same on every attempt and replay.',
        schema: { type: 'string' },
      },
      {
        name: 'webhook-timestamp',
        in: 'header',
        required: true,
        description: 'Unix seconds of this attempt.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      },
      {
        name: 'webhook-signature',
        in: 'header',
        required: true,
        description:
          '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the endpoint’s secret.',
        schema: { type: 'string', pattern: '^v1,' },
      },
    ],
    requestBody: {
      required: true,
      description: 'The event, byte for byte as `GET /v1/events/{id}` returns it.',
      content: { 'application/json': { schema: eventBody(type) } },
    },
    responses: {
      '2XX': {
        description:
          `Any 2xx within ${seconds} s is success. Anything else is a failed attempt, retried on the ` +
          'schedule: no complete answer in time, another status, a redirect (never followed), or a ' +
          'connection error. A 410 disables the endpoint; a 429 or 503 with `Retry-After` postpones the retry.',
      },
    },
  };
}
