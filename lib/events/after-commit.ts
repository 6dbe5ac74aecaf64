import type { DataSource, EntitySubscriberInterface, QueryRunner } from 'typeorm';

type Callback = () => void;

interface Scheduled {
  /** The transaction level the work was written at (1 = the outermost transaction). */
  depth: number;
  callback: Callback;
}

interface TransactionEvent {
  queryRunner: QueryRunner;
}

/**
 * Runs work once the host's outermost transaction commits, and forgets it on rollback, so an event the
 * host rolls back is never sent. TypeORM reports a released savepoint as a commit, so levels are
 * counted: a released savepoint hands its work to the enclosing level, one rolled back drops only its own.
 */
export class AfterCommit implements EntitySubscriberInterface {
  private readonly depths = new WeakMap<QueryRunner, number>();
  private readonly pending = new WeakMap<QueryRunner, Scheduled[]>();

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  schedule(queryRunner: QueryRunner, callback: Callback): void {
    const scheduled = this.pending.get(queryRunner) ?? [];
    scheduled.push({ depth: this.depths.get(queryRunner) ?? 0, callback });
    this.pending.set(queryRunner, scheduled);
  }

  afterTransactionStart(event: TransactionEvent): void {
    this.depths.set(event.queryRunner, (this.depths.get(event.queryRunner) ?? 0) + 1);
  }

  afterTransactionCommit(event: TransactionEvent): void {
    const runner = event.queryRunner;
    const depth = this.leave(runner);
    const scheduled = this.pending.get(runner) ?? [];
    if (runner.isTransactionActive) {
      // A savepoint was released: its work now commits or rolls back with the enclosing level.
      for (const item of scheduled) item.depth = Math.min(item.depth, depth);
      return;
    }
    this.pending.delete(runner);
    scheduled.forEach((item) => item.callback());
  }

  afterTransactionRollback(event: TransactionEvent): void {
    const runner = event.queryRunner;
    const depth = this.leave(runner);
    if (!runner.isTransactionActive) {
      this.pending.delete(runner);
      return;
    }
    const kept = (this.pending.get(runner) ?? []).filter((item) => item.depth <= depth);
    this.pending.set(runner, kept);
  }

  /** Closes one transaction level; answers the level now open (0 = none). */
  private leave(runner: QueryRunner): number {
    const depth = Math.max(0, (this.depths.get(runner) ?? 0) - 1);
    this.depths.set(runner, depth);
    return depth;
  }
}
