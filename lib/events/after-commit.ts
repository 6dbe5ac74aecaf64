import type { DataSource, EntitySubscriberInterface, QueryRunner } from 'typeorm';

type Callback = () => void;

/**
 * Runs work after a host transaction commits (and forgets it on rollback). Enqueueing deliveries
 * inside the transaction could send an event the host then rolls back; after commit it cannot.
 */
export class AfterCommit implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, Callback[]>();

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  schedule(queryRunner: QueryRunner, callback: Callback): void {
    const callbacks = this.pending.get(queryRunner) ?? [];
    callbacks.push(callback);
    this.pending.set(queryRunner, callbacks);
  }

  afterTransactionCommit(event: { queryRunner: QueryRunner }): void {
    const callbacks = this.pending.get(event.queryRunner);
    this.pending.delete(event.queryRunner);
    callbacks?.forEach((callback) => callback());
  }

  afterTransactionRollback(event: { queryRunner: QueryRunner }): void {
    this.pending.delete(event.queryRunner);
  }
}
