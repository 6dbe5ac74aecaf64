import type { DataSource } from 'typeorm';
import { SqlDialect } from '../database/sql-dialect.js';
import { type OutboxEvent, writeToOutboxAtomically } from '../delivery-store/event-outbox.js';
import { MAX_EVENTS_PER_WRITE } from '../interview-api.tuning.js';

interface Waiting {
  event: OutboxEvent;
  resolve: (deliveryIds: string[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for publishes outside a host transaction: calls made while a write is prepared share
 * one statement and one commit (one flush to disk), and each caller resolves once its own event is stored.
 */
export class PublishBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: SqlDialect,
  ) {}

  write(event: OutboxEvent): Promise<string[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ event, resolve, reject });
      if (this.waiting.length >= MAX_EVENTS_PER_WRITE) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    const events = batch.map((waiting) => waiting.event);
    writeToOutboxAtomically(this.dataSource.manager, this.sql, events).then(
      (byEvent) => batch.forEach((waiting) => waiting.resolve(byEvent.get(waiting.event.id) ?? [])),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  }
}
