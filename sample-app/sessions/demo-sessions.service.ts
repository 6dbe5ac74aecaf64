import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { EventEntity, EventPublisher, ResourceMissingError, type ApiEvent } from '../../lib/index.js';
import { DEMO_CONFIG, type DemoConfig } from '../demo-config.js';
import { InterviewSession } from './interview-session.entity.js';
import { toSessionView, type SessionView } from './session-view.js';

const CANDIDATES = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Edsger Dijkstra'];

export interface SessionChange {
  session: SessionView;
  events: Pick<ApiEvent, 'id' | 'type'>[];
}

export interface RolledBackChange {
  rolled_back: true;
  session_id: string;
  event_id: string;
  /** Both false: the rollback took the session and the event (and its deliveries) with it. */
  session_stored: boolean;
  event_stored: boolean;
}

/** Thrown on purpose inside the transaction of the rollback demo. */
class DemoRollback extends Error {}

/**
 * The host's own business logic: each change writes the session and publishes its events in ONE
 * transaction (`publish(input, { manager })`), and the deliveries are queued only after COMMIT, so a
 * change that rolls back sends no webhook.
 */
@Injectable()
export class DemoSessionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly publisher: EventPublisher,
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
  ) {}

  async start(input: { livemode: boolean; candidateName?: string }): Promise<SessionChange> {
    return this.dataSource.transaction((manager) => this.insertAndPublish(manager, input));
  }

  /**
   * The same write and publish, then a failure before COMMIT: the transaction rolls back, and the
   * answer shows that neither the session nor its event was stored, and no delivery went out.
   */
  async startThenRollBack(input: { livemode: boolean }): Promise<RolledBackChange> {
    const written: SessionChange[] = [];
    try {
      await this.dataSource.transaction(async (manager) => {
        written.push(await this.insertAndPublish(manager, { ...input, candidateName: 'Rolled Back' }));
        throw new DemoRollback();
      });
    } catch (error) {
      if (!(error instanceof DemoRollback)) throw error;
    }
    const [{ session, events }] = written;
    return {
      rolled_back: true,
      session_id: session.id,
      event_id: events[0].id,
      session_stored: await this.dataSource
        .getRepository(InterviewSession)
        .exists({ where: { id: session.id } }),
      event_stored: await this.dataSource.getRepository(EventEntity).exists({ where: { id: events[0].id } }),
    };
  }

  private async insertAndPublish(
    manager: EntityManager,
    input: { livemode: boolean; candidateName?: string },
  ): Promise<SessionChange> {
    const session = manager.getRepository(InterviewSession).create({
      id: `ses_${randomBytes(12).toString('hex')}`,
      accountId: this.config.accountId,
      livemode: input.livemode,
      status: 'in_progress',
      candidateName: input.candidateName?.trim() || CANDIDATES[Math.floor(Math.random() * CANDIDATES.length)],
      createdAt: new Date(),
      completedAt: null,
    });
    await manager.getRepository(InterviewSession).insert(session);
    const view = toSessionView(session);
    const event = await this.publisher.publish(
      {
        accountId: session.accountId,
        livemode: session.livemode,
        type: 'session.started',
        data: { ...view },
      },
      { manager },
    );
    return { session: view, events: [{ id: event.id, type: event.type }] };
  }

  async complete(id: string): Promise<SessionChange> {
    return this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(InterviewSession);
      const session = await repository.findOne({ where: { id, accountId: this.config.accountId } });
      if (!session) throw new ResourceMissingError(`No such session: ${id}.`, 'id');
      if (session.status === 'completed') return { session: toSessionView(session), events: [] };
      session.status = 'completed';
      session.completedAt = new Date();
      await repository.update(
        { id: session.id },
        { status: session.status, completedAt: session.completedAt },
      );
      const view = toSessionView(session);
      const base = { accountId: session.accountId, livemode: session.livemode };
      const completed = await this.publisher.publish(
        { ...base, type: 'session.completed', data: { ...view } },
        { manager },
      );
      // A built-in type: the result of the session, as a results API would return it.
      const ready = await this.publisher.publish(
        {
          ...base,
          type: 'result.ready',
          data: {
            id: `res_${session.id.slice(4)}`,
            object: 'result',
            status: 'ready',
            session_id: session.id,
            candidate_name: session.candidateName,
            score: 60 + Math.floor(Math.random() * 41),
            created_at: session.completedAt.toISOString(),
          },
        },
        { manager },
      );
      return {
        session: view,
        events: [completed, ready].map((event) => ({ id: event.id, type: event.type })),
      };
    });
  }

  async list(limit = 20): Promise<SessionView[]> {
    const rows = await this.dataSource.getRepository(InterviewSession).find({
      where: { accountId: this.config.accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
    return rows.map(toSessionView);
  }
}
