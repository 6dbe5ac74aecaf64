import { performance } from 'node:perf_hooks';

import { Agent, request as undiciRequest, type Dispatcher } from 'undici';

import { ipLiteralOf, isPublicAddress } from './address-policy.js';
import { attemptErrorCode, type AttemptErrorCode } from './attempt-error.js';
import { createGuardedLookup } from './guarded-lookup.js';
import { readCappedBody } from './read-capped-body.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResponse {
  /** Set whenever a status line arrived, even if the attempt failed afterwards. */
  status: number | null;
  body: string | null;
  error: AttemptErrorCode | null;
  durationMs: number;
}

export interface WebhookHttpClientOptions {
  /** One deadline for the whole attempt: DNS, connect, TLS, headers and the capped body read. */
  timeoutMs: number;
  /** Development and tests only: lets loopback and private receivers through. */
  allowPrivateDestinations: boolean;
  /** Sockets kept per origin. Defaults to 100. */
  maxConnections?: number;
}

type AttemptOutcome = Omit<WebhookResponse, 'durationMs'>;

const DEFAULT_MAX_CONNECTIONS = 100;
const BLOCKED: AttemptOutcome = { status: null, body: null, error: 'blocked_destination' };

/**
 * POSTs webhook deliveries to customer-controlled URLs, which makes every destination hostile: it
 * may point inside our network (SSRF), redirect there, never answer, or answer forever. `send`
 * turns each of those into a recorded outcome and never throws.
 */
export class WebhookHttpClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly allowPrivateDestinations: boolean;

  constructor(options: WebhookHttpClientOptions) {
    if (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError('timeoutMs must be a positive integer');
    }
    this.timeoutMs = options.timeoutMs;
    this.allowPrivateDestinations = options.allowPrivateDestinations;
    // A dedicated Agent, never the global dispatcher: the guard must not break the host
    // application's own calls to private services. Its inactivity timers are backstops only;
    // a reply dripping one byte at a time keeps resetting them, so the deadline is the bound.
    this.agent = new Agent({
      connections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      connect: options.allowPrivateDestinations
        ? { timeout: options.timeoutMs }
        : { timeout: options.timeoutMs, lookup: createGuardedLookup() },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const startedAt = performance.now();
    const outcome = await this.attempt(request);
    return {
      status: outcome.status,
      body: outcome.body,
      error: outcome.error,
      durationMs: Math.round(performance.now() - startedAt),
    };
  }

  /** Waits for in-flight attempts, then closes the pooled sockets. */
  close(): Promise<void> {
    return this.agent.close();
  }

  private async attempt(request: WebhookRequest): Promise<AttemptOutcome> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return BLOCKED;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return BLOCKED;
    if (!this.allowPrivateDestinations) {
      // Node connects to an IP literal without calling the guarded lookup, so check it here.
      const literal = ipLiteralOf(url.hostname);
      if (literal !== null && !isPublicAddress(literal)) return BLOCKED;
    }

    const deadline = AbortSignal.timeout(this.timeoutMs);
    let response: Dispatcher.ResponseData;
    try {
      // undici.request never follows redirects: a 3xx comes back as the outcome, so a receiver
      // cannot bounce the delivery to an internal address.
      const pending = undiciRequest(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers: withIdentityEncoding(request.headers),
        body: request.body,
        signal: deadline,
      });
      response = await beforeDeadline(pending, deadline);
    } catch (error) {
      return { status: null, body: null, error: attemptErrorCode(error) };
    }

    // The same signal is still attached to the body, so the deadline also ends a slow read.
    const { text, error } = await readCappedBody(response.body);
    const status = response.statusCode;
    if (error !== undefined) return { status, body: text, error: attemptErrorCode(error) };
    return { status, body: text, error: status >= 200 && status < 300 ? null : 'http_error' };
  }
}

function withIdentityEncoding(headers: Record<string, string>): Record<string, string> {
  // undici.request does not decompress: a gzip reply would be stored as binary, and
  // decompressing would let a small reply expand without bound.
  const result: Record<string, string> = {};
  for (const name in headers) {
    if (name.toLowerCase() !== 'accept-encoding') result[name] = headers[name];
  }
  result['accept-encoding'] = 'identity';
  return result;
}

/**
 * undici applies an abort only once the request reaches a connected socket, so a hung DNS lookup,
 * a slow connect or a full pool would outlive the signal. Racing it keeps the deadline total.
 * A request that loses the race still ends: undici aborts it as soon as it is dispatched.
 */
function beforeDeadline<T>(pending: Promise<T>, deadline: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(deadline.reason);
    deadline.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        deadline.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        deadline.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
