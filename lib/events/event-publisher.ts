import { Inject, Injectable } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource, type EntityManager } from 'typeorm';
import { Clock } from '../clock/clock.js';
import { DeliveryDispatcher, type DueDelivery } from '../delivery-engine/delivery-dispatcher.js';
import { SqlDialect } from '../database/sql-dialect.js';
import { ParameterInvalidError } from '../errors/api-error.js';
import { checkAccountId } from '../auth/account-id.js';
import { generateId } from '../identifiers/generate-id.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { AfterCommit } from './after-commit.js';
import type { ApiEvent } from './api-event.js';
import { type OutboxEvent, writeToOutboxAtomically } from '../delivery-store/event-outbox.js';
import { PublishBatcher } from './publish-batcher.js';
import { EventTypes } from './event-types.js';
import type { PublishEventInput, PublishOptions } from './publish-event.input.js';

/**
 * The event's bytes. JSON.stringify throws a TypeError only for a value JSON cannot hold (a BigInt,
 * a circular reference) and a RangeError for one nested deeper than its recursion reaches, and only
 * the host's data can hold either.
 */
function serialise(event: ApiEvent): string {
  try {
    return JSON.stringify(event);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new ParameterInvalidError('data', 'data is nested too deeply to be serialised as JSON.');
    }
    if (!(error instanceof TypeError)) throw error;
    const reason = error.message.split('\n')[0];
    throw new ParameterInvalidError('data', `data must be serialisable as JSON: ${reason}.`);
  }
}

/**
 * The host's way in: stores an event and one pending delivery per matching endpoint in one
 * transaction (the outbox), then hands the deliveries to the dispatcher once that transaction has
 * committed. If the hand-off fails (Redis down), the rows are still there and the sweeper sends them.
 */
@Injectable()
export class EventPublisher {
  private readonly afterCommit: AfterCommit;
  private readonly sql: SqlDialect;
  private readonly batcher: PublishBatcher;

  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    @Inject(INTERVIEW_API_OPTIONS) private readonly options: ResolvedOptions,
    private readonly eventTypes: EventTypes,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly clock: Clock,
  ) {
    this.afterCommit = new AfterCommit(dataSource);
    this.sql = new SqlDialect(dataSource);
    this.batcher = new PublishBatcher(dataSource, this.sql);
  }

  async publish(input: PublishEventInput, options: PublishOptions = {}): Promise<ApiEvent> {
    this.validate(input);
    return (await this.store(input, { endpointId: null }, options.manager)).event;
  }

  /**
   * Publishes for the module itself (test events): the event and the ids of its deliveries. Kept
   * from hosts: it skips `publish`'s checks (the reserved webhook.test, the account id).
   * @internal
   */
  async store(
    input: PublishEventInput,
    target: { endpointId: string | null },
    manager?: EntityManager,
  ): Promise<{ event: ApiEvent; deliveryIds: string[] }> {
    // Another DataSource's manager would write the event where the module never reads it.
    if (manager !== undefined && manager.dataSource !== this.dataSource) {
      throw new ParameterInvalidError(
        'manager',
        "manager must be an EntityManager of the module's DataSource (the dataSource option; the default DataSource unless given).",
      );
    }
    const now = this.clock.now();
    const payload = serialise({
      id: generateId('evt', now),
      object: 'event',
      type: input.type,
      api_version: this.options.apiVersion,
      livemode: input.livemode,
      created_at: now.toISOString(),
      data: { object: input.data },
    } satisfies ApiEvent);
    // Every delivery of the event carries these bytes, and a worker holds the claimed ones in
    // memory: an event a host let grow without bound would be paid for many times over.
    const bytes = Buffer.byteLength(payload);
    if (bytes > this.options.maxEventBytes) {
      throw new ParameterInvalidError(
        'data',
        `The event is ${bytes} bytes as JSON, over the ${this.options.maxEventBytes} of the maxEventBytes option.`,
      );
    }
    // The answer is the stored JSON read back, as GET /v1/events/{id} and every webhook carry it:
    // the host's Dates become ISO strings, undefined fields go, and later changes to the host's
    // object change nothing.
    const event = JSON.parse(payload) as ApiEvent;
    // Checked as stored rather than as given: a toJSON, a Date or an undefined field changes what
    // the event carries, and an event without its resource's id and object must not be sent.
    this.validateData(event.data.object);
    const row: OutboxEvent = {
      id: event.id,
      accountId: input.accountId,
      livemode: input.livemode,
      type: input.type,
      payload,
      createdAt: now,
      endpointId: target.endpointId,
    };
    const write = async (tx: EntityManager): Promise<string[]> =>
      (await writeToOutboxAtomically(tx, this.sql, [row])).get(row.id) ?? [];
    const due = (ids: string[]): DueDelivery[] => ids.map((id) => ({ id, nextAttemptAt: null }));

    const hostTransaction = manager?.queryRunner?.isTransactionActive ? manager.queryRunner : undefined;
    if (hostTransaction && manager) {
      const deliveryIds = await write(manager);
      this.afterCommit.schedule(hostTransaction, () => this.dispatcher.dispatch(due(deliveryIds)));
      return { event, deliveryIds };
    }
    const deliveryIds = manager ? await write(manager) : await this.batcher.write(row);
    const dispatch = (): void => this.dispatcher.dispatch(due(deliveryIds));
    // TypeORM gives SQLite one connection and one query runner: a write made while another
    // transaction is open on it (a host's, say) is only a savepoint of that one, and commits or
    // rolls back with it. Sending before then could send an event that is never stored.
    const shared = this.sql.postgres ? undefined : this.dataSource.createQueryRunner();
    if (shared?.isTransactionActive) this.afterCommit.schedule(shared, dispatch);
    else dispatch();
    return { event, deliveryIds };
  }

  /** Refused before anything is written. */
  private validate(input: PublishEventInput): void {
    if (input === null || typeof input !== 'object')
      throw new ParameterInvalidError('input', 'input must be an object.');
    checkAccountId(input.accountId);
    if (typeof input.livemode !== 'boolean')
      throw new ParameterInvalidError('livemode', 'livemode must be a boolean.');
    if (typeof input.type !== 'string' || !this.eventTypes.isKnown(input.type)) {
      throw new ParameterInvalidError(
        'type',
        `Unknown event type: ${String(input.type)}. Register host types with the eventTypes option.`,
      );
    }
    // Built in, so registering it changes nothing: the host is told where these events come from.
    if (input.type === 'webhook.test') {
      throw new ParameterInvalidError(
        'type',
        'webhook.test is reserved: the module sends it only for POST /v1/webhook_endpoints/{id}/test.',
      );
    }
  }

  /** The event's resource as serialised: refused before anything is written. */
  private validateData(data: unknown): void {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new ParameterInvalidError('data', 'data must be the resource object.');
    }
    const { id, object } = data as Record<string, unknown>;
    if (typeof id !== 'string' || id.length === 0 || typeof object !== 'string' || object.length === 0) {
      throw new ParameterInvalidError('data', 'data must have a string id and a string object.');
    }
  }
}
