import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InterviewApiModule, type ResourceDefinition } from '../lib/index.js';
import { DEMO_ALLOWS_INSECURE_URLS, DEMO_CONFIG, HOST_EVENT_TYPES, loadDemoConfig } from './demo-config.js';
import { DevelopersApiController } from './developers/developers-api.controller.js';
import { DevelopersPageController } from './developers/developers-page.controller.js';
import { DemoReceiverController } from './receiver/demo-receiver.controller.js';
import { DemoReceiverService } from './receiver/demo-receiver.service.js';
import { DemoSessionsService } from './sessions/demo-sessions.service.js';
import { InterviewSession } from './sessions/interview-session.entity.js';
import { SESSION_SCHEMA } from './sessions/session-schema.js';
import { toSessionView } from './sessions/session-view.js';

const config = loadDemoConfig();

/** The host's sessions under /v1, in the one public shape the Developers page shows too. */
const sessions: ResourceDefinition<InterviewSession> = {
  path: 'sessions',
  entity: InterviewSession,
  object: 'session',
  scope: 'results:read',
  filters: ['status'],
  toJSON: (row) => ({ ...toSessionView(row) }),
  schema: SESSION_SCHEMA,
};

/**
 * The sample host: its own DataSource and entity, the module mounted with forRoot, and three
 * pieces of its own: the Developers page (dashboard), the session logic that publishes events,
 * and a local webhook receiver.
 */
@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'better-sqlite3',
      database: config.databaseFile,
      enableWAL: true,
      autoLoadEntities: true,
      // Demo only: a real host runs the package's migrations (lib/migrations) next to its own.
      synchronize: true,
    }),
    TypeOrmModule.forFeature([InterviewSession]),
    InterviewApiModule.forRoot({
      keyPrefix: config.keyPrefix,
      cursorSecret: config.cursorSecret,
      redis: config.redis,
      serviceName: 'Interview',
      queuePrefix: config.queuePrefix,
      eventTypes: HOST_EVENT_TYPES,
      webhooks: {
        allowInsecureUrls: DEMO_ALLOWS_INSECURE_URLS,
        timeoutMs: 5_000,
        // Short, so that a failing receiver shows its retries within a minute.
        retryScheduleMs: [5_000, 15_000, 60_000],
        sweepIntervalMs: 5_000,
      },
      resources: [sessions],
    }),
  ],
  controllers: [DevelopersPageController, DevelopersApiController, DemoReceiverController],
  providers: [{ provide: DEMO_CONFIG, useValue: config }, DemoSessionsService, DemoReceiverService],
})
export class AppModule {}
