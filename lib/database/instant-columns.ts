import { BaseEntity, type DataSource } from 'typeorm';

/**
 * The base of the module's entities with timestamps: on PostgreSQL their Date columns are
 * `timestamptz`, instants whatever the zones of the processes, not TypeORM's `timestamp` (a process's
 * wall-clock time); SQLite keeps its UTC text. A DataSource calls each BaseEntity's useDataSource once
 * it has built their metadata, before it synchronizes or migrates: there the type follows the database.
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
