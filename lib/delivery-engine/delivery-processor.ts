import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { RepeatLimitedWarnings } from '../errors/repeat-limited-warnings.js';
import { WebhookHttpClient, type WebhookResponse } from '../http/index.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { ClaimRenewer } from './claim-renewer.js';
import { DeferralPacer } from './deferral-pacer.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { FairSendScheduler } from './fair-send-scheduler.js';
import { type FailingStreakRule, failingStreakRule } from './failing-streak.js';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryTarget } from '../delivery-store/claimed-delivery.js';
import type { DeliveryErrorCode } from '../delivery-store/delivery.entity.js';
import { DeliveryStore } from '../delivery-store/delivery-store.js';
import { EndpointRefresher } from './endpoint-refresher.js';
import { FifoCapacity } from './fifo-capacity.js';
import { OutcomeRecorder } from './outcome-recorder.js';
import { nextAttemptAt } from './retry-schedule.js';
import { webhookHeaders } from './webhook-headers.js';
import {
  CLAIM_LEASE_MS,
  DEFERRAL_HORIZON_MS,
  DRAIN_BUDGET_DEADLINES,
  ENDPOINT_READ_MAX_AGE_MS,
  HELD_PER_SEND_SLOT,
  MIN_DEFERRAL_MS,
} from '../interview-api.tuning.js';
import { heldLimit } from './held-limit.js';

/** What an attempt sent to, and the reply. */
interface SentAttempt {
  response: WebhookResponse;
  url: string;
}
/** A delivery sendNow gives back unsent: what its endpoint is now could not be read (in time). */
const GIVEN_BACK = Symbol('given back');
/** A receiver that answers 410 Gone is not retried and its endpoint is disabled (Standard Webhooks). */
const GONE = 410;
/** Why nothing may be sent to an endpoint that is not enabled (or an event that is purged). */
const whyUnsendable = (endpoint: DeliveryTarget | null): DeliveryErrorCode =>
  endpoint?.status === 'disabled' ? 'endpoint_disabled' : 'endpoint_deleted';

/**
 * Sends each batch: claims what is still due (with endpoints and bodies), sends it in fair shares of
 * the send slots, records each outcome as its send ends and queues retries and deliveries given back.
 * Room is taken before a claim, bounding what a process holds; claims are renewed until recorded.
 * Built by DELIVERY_PROCESSOR_PROVIDER, in a process that runs the worker only.
 */
export class DeliveryProcessor implements BeforeApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private readonly http: WebhookHttpClient;
  private readonly sends: FairSendScheduler;
  private readonly deferrals = new DeferralPacer(DEFERRAL_HORIZON_MS);
  /** The claimed deliveries this process holds, from their claim until their outcome is recorded. */
  private readonly capacity: FifoCapacity;
  private readonly recorder: OutcomeRecorder;
  private readonly userAgent: string;
  private readonly claims: ClaimRenewer;
  private readonly endpoints: EndpointRefresher;
  private readonly streak: FailingStreakRule;
  /**
   * The database's refusals (a restart, say), which every batch and send meets while they last:
   * each logged once a minute at most, however they alternate with reads that go through.
   */
  private readonly databaseWarnings = new RepeatLimitedWarnings((message) => this.logger.warn(message));
  /** The batches being sent, each until every outcome of it is recorded. */
  private readonly inFlight = new Set<Promise<void[]>>();

  constructor(
    private readonly store: DeliveryStore,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
    private readonly options: ResolvedOptions,
  ) {
    const { timeoutMs, allowInsecureUrls, concurrency, batchSize } = options.webhooks;
    this.http = new WebhookHttpClient({
      timeoutMs,
      allowPrivateDestinations: allowInsecureUrls,
      maxConnections: concurrency,
    });
    this.sends = new FairSendScheduler(concurrency, HELD_PER_SEND_SLOT, DRAIN_BUDGET_DEADLINES * timeoutMs);
    this.capacity = new FifoCapacity(
      heldLimit({ ...options.webhooks, maxEventBytes: options.maxEventBytes }),
    );
    this.recorder = new OutcomeRecorder(
      (outcomes) => this.record(outcomes),
      batchSize,
      (error) =>
        this.databaseWarnings.add(
          `Could not record delivery outcomes (their claims expire and the sweeper sends them again): ${String(error)}`,
        ),
    );
    this.userAgent = `${options.serviceName}-Webhooks/1.0`;
    this.streak = failingStreakRule(options.webhooks);
    this.endpoints = new EndpointRefresher(
      (endpointIds) => this.store.targets(endpointIds),
      ENDPOINT_READ_MAX_AGE_MS,
      () => this.clock.now().getTime(),
    );
    this.claims = new ClaimRenewer(
      (held) => this.store.renew(held, new Date(this.clock.now().getTime() + CLAIM_LEASE_MS)),
      (error) =>
        this.databaseWarnings.add(
          `Could not renew delivery claims (they expire unless renewed): ${String(error)}`,
        ),
    );
  }

  /**
   * Claims a batch and starts its sends; answers how many deliveries it claimed once they are
   * claimed, not sent, so that a slow receiver holds up no queue job. `drain` waits for the sends.
   */
  async take(ids: readonly string[]): Promise<number> {
    await this.capacity.acquire(ids.length);
    let claimed: ClaimedDelivery[] = [];
    try {
      const now = this.clock.now();
      // Those of endpoints that are full here are given back unsent: their bodies are left unread.
      const lease = new Date(now.getTime() + CLAIM_LEASE_MS);
      claimed = await this.store.claim(ids, now, lease, this.sends.endpointsWithoutRoom());
    } finally {
      this.capacity.release(ids.length - claimed.length);
    }
    this.claims.hold(claimed);
    if (claimed.length > 0) {
      const sends = Promise.all(claimed.map((delivery) => this.send(delivery)));
      this.inFlight.add(sends);
      void sends.then(() => this.inFlight.delete(sends));
    }
    return claimed.length;
  }

  /**
   * Sends nothing more: the deliveries still waiting for a send slot, and any claimed from now on,
   * are given back due at once, for another worker; the sends on the wire go on to their outcome.
   */
  stop(): void {
    this.sends.close();
  }

  /** Resolves once every send taken so far has its outcome recorded (or failed to). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** One attempt, recorded; its room is given back once it is (or could not be). */
  private async send(delivery: ClaimedDelivery): Promise<void> {
    try {
      await this.recorder.add(await this.attempt(delivery));
    } catch (error) {
      this.databaseWarnings.add(`A delivery stays claimed until its lease expires: ${String(error)}`);
    } finally {
      this.claims.letGo(delivery);
      this.capacity.release(1);
    }
  }

  private async record(outcomes: DeliveryOutcome[]): Promise<void> {
    const disabled = await this.store.record(outcomes, this.clock.now(), this.streak);
    // The operator's notice: the account's deliveries to it stop until it is enabled again.
    for (const { id, reason } of disabled) {
      const { tenant } = outcomes.find((outcome) => outcome.delivery.endpointId === id)!.delivery;
      this.logger.warn(`Webhook endpoint ${id} (${tenant}) disabled: ${reason}.`);
    }
    this.dispatcher.dispatch(
      outcomes
        .filter((outcome) => outcome.status === 'pending')
        .map((outcome) => ({ id: outcome.delivery.id, nextAttemptAt: outcome.nextAttemptAt })),
    );
  }

  private async attempt(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const { target, payload } = delivery;
    if (target?.status !== 'enabled') return this.unsent(delivery, whyUnsendable(target));
    if (delivery.bodyUnread || !this.sends.admits(delivery.endpointId)) return this.deferred(delivery);
    if (payload === null) return this.unsent(delivery, whyUnsendable(target));
    const turn = await this.sends.run(delivery.endpointId, delivery.tenant, (sending) =>
      this.sendNow(delivery, payload, sending),
    );
    if (!turn.ran || turn.value === GIVEN_BACK) return this.deferred(delivery);
    if (typeof turn.value === 'string') return this.unsent(delivery, turn.value);
    const { response, url } = turn.value;
    const gone = response.status === GONE;
    const attemptsMade = delivery.attempt + 1;
    const retryAt =
      response.error === null || gone
        ? null
        : nextAttemptAt(
            this.options.webhooks.retryScheduleMs,
            attemptsMade,
            this.clock.now(),
            response.retryAfterMs,
          );
    return {
      delivery,
      attempted: true,
      status: response.error === null ? 'succeeded' : retryAt ? 'pending' : 'failed',
      responseStatus: response.status,
      responseBody: response.body,
      error: response.error,
      durationMs: response.durationMs,
      nextAttemptAt: retryAt,
      goneUrl: gone ? url : null,
    };
  }

  /** In the delivery's turn: sends it to its endpoint as it is now, unless it may no longer be sent. */
  private async sendNow(
    delivery: ClaimedDelivery,
    payload: string,
    sending: () => void,
  ): Promise<SentAttempt | DeliveryErrorCode | typeof GIVEN_BACK> {
    let endpoint: DeliveryTarget | null;
    try {
      endpoint = await this.endpoints.current(delivery);
    } catch (error) {
      // A database too slow to say what is current, or away: given back for later rather than held
      // until its lease runs out, with every delivery waiting behind it.
      this.databaseWarnings.add(
        `Could not read webhook endpoints again; deliveries waiting for a send slot are given back for later: ${String(error)}`,
      );
      return GIVEN_BACK;
    }
    if (endpoint?.status !== 'enabled') return whyUnsendable(endpoint);
    // Disabled (or its retries otherwise dropped) and enabled again while this one waited: it was
    // dropped then, and stays dropped.
    if (endpoint.retryDrops !== delivery.target?.retryDrops) return 'endpoint_disabled';
    sending();
    const now = this.clock.now();
    const response = await this.http.send({
      url: endpoint.url,
      headers: webhookHeaders(this.userAgent, delivery.eventId, endpoint.secret, payload, now),
      body: payload,
      now,
    });
    return { response, url: endpoint.url };
  }

  /** A delivery that ends without an attempt: its endpoint is gone or disabled, or its event purged. */
  private unsent(delivery: ClaimedDelivery, error: DeliveryErrorCode): DeliveryOutcome {
    return {
      delivery,
      attempted: false,
      status: 'failed',
      responseStatus: null,
      responseBody: null,
      error,
      durationMs: null,
      nextAttemptAt: null,
      goneUrl: null,
    };
  }

  /**
   * Gives back unsent a delivery its endpoint has no room for here, its attempt not counted: due again
   * once the endpoint's held sends have drained, behind those given back before it, one per send at
   * its pace (within one deadline while its pace is unknown).
   */
  private deferred(delivery: ClaimedDelivery): DeliveryOutcome {
    const now = this.clock.now().getTime();
    return {
      delivery,
      attempted: false,
      status: 'pending',
      responseStatus: null,
      responseBody: null,
      error: null,
      durationMs: null,
      nextAttemptAt: new Date(this.sends.closed ? now : this.dueAgainAt(delivery.endpointId, now)),
      goneUrl: null,
    };
  }

  /** After the endpoint's held sends have drained, and those given back before, at its pace. */
  private dueAgainAt(endpointId: string, now: number): number {
    const { intervalMs, drainMs } = this.sends.pace(endpointId, this.options.webhooks.timeoutMs);
    return this.deferrals.dueAt(endpointId, now, now + Math.max(drainMs, MIN_DEFERRAL_MS), intervalMs);
  }

  /** While the host's database is still open: the outcomes of the last sends are written to it. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stop();
    await this.drain();
    await this.claims.close();
    await this.http.close();
  }
}
