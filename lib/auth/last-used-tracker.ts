import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectInterviewDataSource } from '../database/interview-data-source.js';
import { DataSource } from 'typeorm';
import { Clock } from '../clock/clock.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { LAST_USED_WRITE_INTERVAL_MS } from '../interview-api.tuning.js';

/**
 * Keeps `last_used_at` fresh to the minute without a write per request: each instance writes a key
 * at most once a minute, and the conditional UPDATE keeps several instances from all writing it.
 */
@Injectable()
export class LastUsedTracker implements BeforeApplicationShutdown {
  private readonly logger = new Logger('InterviewApi');
  private readonly lastWritten = new Map<string, number>();
  /** The writes under way: a request does not wait for them, the shutdown does. */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    @InjectInterviewDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  touch(key: Pick<ApiKeyEntity, 'id' | 'lastUsedAt'>): void {
    const now = this.clock.now();
    const seen = Math.max(this.lastWritten.get(key.id) ?? 0, key.lastUsedAt?.getTime() ?? 0);
    if (now.getTime() - seen < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(key.id, now.getTime());
    const write = this.write(key.id, now);
    this.writing.add(write);
    void write.then(() => this.writing.delete(write));
  }

  /**
   * Before any module's onApplicationShutdown, while the host's DataSource is still open: Nest
   * runs that hook module by module, and TypeORM's destroys the DataSource, which would end a write
   * still under way and lose the key's last use.
   */
  async beforeApplicationShutdown(): Promise<void> {
    while (this.writing.size > 0) await Promise.all([...this.writing]);
  }

  private async write(id: string, now: Date): Promise<void> {
    const threshold = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS);
    try {
      await this.dataSource
        .createQueryBuilder()
        .update(ApiKeyEntity)
        .set({ lastUsedAt: now })
        .where('id = :id', { id })
        .andWhere('(last_used_at IS NULL OR last_used_at < :threshold)', { threshold })
        .execute();
    } catch (error) {
      this.logger.warn(`last_used_at of API key ${id} not updated: ${String(error)}`);
    }
  }
}
