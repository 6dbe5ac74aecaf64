import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { WebhookHttpClient } from '../http/index.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { claimLeaseMs } from './claim-lease.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import type { ClaimedDelivery, DeliveryOutcome } from './claimed-delivery.js';
import { DeliveryStore } from './delivery-store.js';
import { nextAttemptAt } from './retry-schedule.js';
import { SendLimiter } from './send-limiter.js';
import { webhookHeaders } from './webhook-headers.js';

/**
 * Sends one batch of deliveries: claim what is still due, load endpoints and events once, send
 * concurrently, record every outcome in a few statements, then queue the retries.
 */
@Injectable()
export class DeliveryProcessor implements OnApplicationShutdown {
  private readonly http: WebhookHttpClient;
  private readonly limiter: SendLimiter;
  private readonly userAgent: string;
  private readonly leaseMs: number;

  constructor(
    private readonly store: DeliveryStore,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
  ) {
    const { timeoutMs, allowInsecureUrls, concurrency } = options.webhooks;
    this.http = new WebhookHttpClient({
      timeoutMs,
      allowPrivateDestinations: allowInsecureUrls,
      maxConnections: concurrency,
    });
    this.limiter = new SendLimiter(concurrency);
    this.userAgent = `${options.serviceName}-Webhooks/1.0`;
    this.leaseMs = claimLeaseMs(options.webhooks);
  }

  async process(ids: readonly string[]): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.store.claim(ids, now, new Date(now.getTime() + this.leaseMs));
    if (claimed.length === 0) return 0;
    const outcomes = await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    const recordedAt = this.clock.now();
    await this.store.record(outcomes, recordedAt, this.options.webhooks.disableAfterMs);
    this.dispatcher.dispatch(
      outcomes
        .filter((outcome) => outcome.status === 'pending')
        .map((outcome) => ({ id: outcome.delivery.id, nextAttemptAt: outcome.nextAttemptAt })),
    );
    return claimed.length;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const { target: endpoint, payload } = delivery;
    if (!endpoint || payload === null || endpoint.status !== 'enabled') {
      return {
        delivery,
        attempted: false,
        status: 'failed',
        responseStatus: null,
        responseBody: null,
        error: endpoint?.status === 'disabled' ? 'endpoint_disabled' : 'endpoint_deleted',
        durationMs: null,
        nextAttemptAt: null,
      };
    }
    const response = await this.limiter.run(() =>
      this.http.send({
        url: endpoint.url,
        headers: webhookHeaders(this.userAgent, delivery.eventId, endpoint.secret, payload, this.clock.now()),
        body: payload,
      }),
    );
    const attemptsMade = delivery.attempt + 1;
    const retryAt =
      response.error === null
        ? null
        : nextAttemptAt(this.options.webhooks.retryScheduleMs, attemptsMade, this.clock.now());
    return {
      delivery,
      attempted: true,
      status: response.error === null ? 'succeeded' : retryAt ? 'pending' : 'failed',
      responseStatus: response.status,
      responseBody: response.body,
      error: response.error,
      durationMs: response.durationMs,
      nextAttemptAt: retryAt,
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.http.close();
  }
}
