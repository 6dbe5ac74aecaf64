import type { HeadersObject } from '@nestjs/swagger';

/** On every /v1 answer, whatever its status. */
export const REQUEST_ID_HEADER: HeadersObject = {
  'Request-Id': {
    description: 'The request’s id (`req_...`), which the host’s logs name too.',
    schema: { type: 'string' },
  },
};

/** On every answer to a request the API key's rate limit metered. */
export const RATE_LIMIT_HEADERS: HeadersObject = {
  'X-RateLimit-Limit': {
    description: 'Requests a second the key’s mode allows.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Whole requests left after this one.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'Whole seconds until the key’s bucket is full again.',
    schema: { type: 'integer' },
  },
};
