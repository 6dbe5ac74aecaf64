import { Controller, Get, Headers, Query, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiKeyEntity, type ApiEvent, EventEntity } from '../lib/index.js';

const PAGE = 25;

/** What the hand-written feed answers: a page of events as the module's list writes them. */
interface HandWrittenPage {
  object: 'list';
  data: ApiEvent[];
  has_more: boolean;
}

/**
 * The peers the module's routes are measured against, in the same host: a route that does nothing,
 * and the event feed as a host would write it by hand with TypeORM's repository API (no guard, no
 * limiter, no cursor: the key hashed and looked up, a page read by OFFSET, the payloads parsed).
 */
@Controller('bench')
export class HandWrittenFeedController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get('bare')
  bare(): { ok: true } {
    return { ok: true };
  }

  @Get('events')
  async events(
    @Headers('authorization') authorization: string | undefined,
    @Query('offset') offset: string | undefined,
  ): Promise<HandWrittenPage> {
    const token = authorization?.replace(/^Bearer /, '') ?? '';
    const keyHash = createHash('sha256').update(token).digest('hex');
    const key = await this.dataSource.getRepository(ApiKeyEntity).findOne({ where: { keyHash } });
    if (!key || key.revokedAt) throw new UnauthorizedException();
    const rows = await this.dataSource.getRepository(EventEntity).find({
      where: { accountId: key.accountId, livemode: key.livemode },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: PAGE,
      skip: Number(offset ?? 0),
    });
    return {
      object: 'list',
      data: rows.map((row) => JSON.parse(row.payload) as ApiEvent),
      has_more: rows.length === PAGE,
    };
  }
}
