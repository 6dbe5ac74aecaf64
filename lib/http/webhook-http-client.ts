import { performance } from 'node:perf_hooks';

import { Agent, buildConnector } from 'undici';

import { ipLiteralOf, isPublicAddress } from './address-policy.js';
import { AttemptHandler, type AttemptOutcome } from './attempt-handler.js';
import { createBudgetedResolver, dnsBudgetMs } from './budgeted-resolver.js';
import { createGuardedLookup } from './guarded-lookup.js';
import { withReplyByteBudget } from './reply-byte-budget.js';
import { MAX_CACHED_WEBHOOK_TARGETS } from '../interview-api.tuning.js';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /**
   * The attempt's time on the module's clock (the database's, which the process's may be off
   * from): a `Retry-After` date is read against it, as the next attempt is scheduled on it.
   */
  now: Date;
}

export interface WebhookResponse extends AttemptOutcome {
  durationMs: number;
}

export interface WebhookHttpClientOptions {
  /** One deadline for the whole attempt: DNS, connect, TLS, headers and the capped body read. */
  timeoutMs: number;
  /** Development and tests only: lets loopback and private receivers through. */
  allowPrivateDestinations: boolean;
  /** Sockets kept per origin. */
  maxConnections: number;
}

/** Where a webhook URL sends to, as undici's dispatcher takes it; null when it may not be sent to. */
interface Target {
  origin: string;
  path: string;
}

const BLOCKED: AttemptOutcome = {
  status: null,
  body: null,
  error: 'blocked_destination',
  retryAfterMs: null,
};

/**
 * POSTs webhook deliveries to customer-controlled URLs, which makes every destination hostile: it
 * may point inside our network (SSRF), redirect there, never answer, or answer forever. `send`
 * turns each of those into a recorded outcome and never throws.
 */
export class WebhookHttpClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly allowPrivateDestinations: boolean;
  private readonly targets = new Map<string, Target | null>();

  constructor(options: WebhookHttpClientOptions) {
    if (!Number.isInteger(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError('timeoutMs must be a positive integer');
    }
    this.timeoutMs = options.timeoutMs;
    this.allowPrivateDestinations = options.allowPrivateDestinations;
    // A dedicated Agent, so the guard never touches the host's own calls. Its inactivity timers are
    // backstops (a dripping reply resets them): the deadline is the bound. No redirect interceptor:
    // a 3xx is the outcome. Every reply is held to a byte budget on the socket too, since the body
    // cap counts body bytes only.
    this.agent = new Agent({
      connections: options.maxConnections,
      connect: withReplyByteBudget(
        buildConnector({
          timeout: options.timeoutMs,
          ...(options.allowPrivateDestinations
            ? {}
            : {
                lookup: createGuardedLookup(
                  createBudgetedResolver({ budgetMs: dnsBudgetMs(options.timeoutMs) }),
                ),
              }),
        }),
      ),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const startedAt = performance.now();
    const target = this.target(request.url);
    const outcome = target === null ? BLOCKED : await this.attempt(target, request);
    return {
      status: outcome.status,
      body: outcome.body,
      error: outcome.error,
      retryAfterMs: outcome.retryAfterMs,
      durationMs: Math.round(performance.now() - startedAt),
    };
  }

  /** Waits for in-flight attempts, then closes the pooled sockets. */
  close(): Promise<void> {
    return this.agent.close();
  }

  /** Dispatched with a handler of our own: no response stream or abort signal per delivery. */
  private attempt(target: Target, request: WebhookRequest): Promise<AttemptOutcome> {
    return new Promise<AttemptOutcome>((resolve) => {
      const handler = new AttemptHandler(this.timeoutMs, request.now.getTime() - Date.now(), resolve);
      try {
        this.agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            headers: withIdentityEncoding(request.headers),
            body: request.body,
          },
          handler,
        );
      } catch (error) {
        handler.onResponseError(undefined, error as Error);
      }
    });
  }

  private target(url: string): Target | null {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = parseTarget(url, this.allowPrivateDestinations);
      if (this.targets.size >= MAX_CACHED_WEBHOOK_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }
}

function parseTarget(raw: string, allowPrivateDestinations: boolean): Target | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // Plain http is for development only, as at registration: an endpoint stored while it was
  // allowed (or written by the host directly) never gets a signed body in clear text.
  if (!allowPrivateDestinations && url.protocol !== 'https:') return null;
  if (!allowPrivateDestinations) {
    // Node connects to an IP literal without calling the guarded lookup, so check it here.
    const literal = ipLiteralOf(url.hostname);
    if (literal !== null && !isPublicAddress(literal)) return null;
  }
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

function withIdentityEncoding(headers: Record<string, string>): Record<string, string> {
  // The reply is stored as it arrives: a gzip reply would be stored as binary, and decompressing
  // would let a small reply expand without bound.
  const result: Record<string, string> = {};
  for (const name in headers) {
    if (name.toLowerCase() !== 'accept-encoding') result[name] = headers[name];
  }
  result['accept-encoding'] = 'identity';
  return result;
}
