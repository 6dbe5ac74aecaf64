import type { Logger } from 'typeorm';

/**
 * Counts the SQL statements sent through the host's DataSource, split between the host's publishes
 * (on PostgreSQL, exactly the statements that insert events) and the delivery engine (the rest).
 */
export class CountingLogger implements Logger {
  publisherStatements = 0;
  engineStatements = 0;

  reset(): void {
    this.publisherStatements = 0;
    this.engineStatements = 0;
  }

  logQuery(query: string): void {
    // Transaction control counts too: each is a round trip like any other statement.
    if (query.includes('INSERT INTO interview_events')) this.publisherStatements++;
    else this.engineStatements++;
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
