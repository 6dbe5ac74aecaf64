import { BaseEntity, type DataSource } from 'typeorm';

/**
 * The base of the module's entities with timestamps: their Date columns hold instants. On PostgreSQL
 * they are `timestamptz`, which node-postgres writes and reads as instants whatever the process's
 * time zone (TypeORM's type for a Date there, `timestamp`, holds the wall-clock time of the process
 * that wrote it); SQLite keeps TypeORM's UTC `datetime` text.
 *
 * TypeORM has no per-database type for an instant, and decorators run before the database is known.
 * A DataSource tells each BaseEntity its DataSource once it has built their metadata, before it
 * synchronizes or migrates: the columns take PostgreSQL's type there, for every DataSource apart.
 */
export abstract class InstantColumnsEntity extends BaseEntity {
  static override useDataSource(dataSource: DataSource | null): void {
    super.useDataSource(dataSource);
    if (dataSource?.options.type !== 'postgres') return;
    for (const column of dataSource.getMetadata(this).columns) {
      if (column.type === Date) column.type = 'timestamptz';
    }
  }
}
