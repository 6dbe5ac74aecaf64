import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ApiKeyEntity } from './auth/api-key.entity.js';
import { ApiKeyGuard } from './auth/api-key.guard.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import { LastUsedTracker } from './auth/last-used-tracker.js';
import { RateLimiter } from './auth/rate-limiter.js';
import { Clock } from './clock/clock.js';
import { ClockAlignment } from './clock/clock-alignment.js';
import { checkEntities } from './database/entity-check.js';
import { INTERVIEW_DATA_SOURCE, interviewDataSourceProvider } from './database/interview-data-source.js';
import { checkSchema } from './database/schema-check.js';
import { AttemptEntity } from './delivery-store/attempt.entity.js';
import { DeliveriesController } from './deliveries/deliveries.controller.js';
import { DeliveriesService } from './deliveries/deliveries.service.js';
import { DeliveryDispatcher } from './delivery-engine/delivery-dispatcher.js';
import { DELIVERY_PROCESSOR_PROVIDER } from './delivery-engine/delivery-processor.provider.js';
import { DeliveryQueue } from './delivery-engine/delivery-queue.js';
import { DeliveryStore } from './delivery-store/delivery-store.js';
import { SECRET_CIPHER_PROVIDER } from './delivery-store/secret-cipher.provider.js';
import { DeliverySweeper } from './delivery-engine/delivery-sweeper.js';
import { DeliveryWorker } from './delivery-engine/delivery-worker.js';
import { DeliveryEntity } from './delivery-store/delivery.entity.js';
import { PendingDeliveryEntity } from './delivery-store/pending-delivery.entity.js';
import { V1Fallback } from './auth/v1-fallback.js';
import { EventEntity } from './events/event.entity.js';
import { EventPublisher } from './events/event-publisher.js';
import { EventRetention } from './events/event-retention.js';
import { EventTypes } from './events/event-types.js';
import { EventsController } from './events/events.controller.js';
import { EventsService } from './events/events.service.js';
import { IdempotencyKeyEntity } from './idempotency/idempotency-key.entity.js';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor.js';
import { IdempotencyRetention } from './idempotency/idempotency-retention.js';
import { IdempotencyStore } from './idempotency/idempotency-store.js';
import { INSTALLATION_ID, readInstallationId } from './installation/installation-id.js';
import { InstallationEntity } from './installation/installation.entity.js';
import { INTERVIEW_API_OPTIONS } from './interview-api.constants.js';
import {
  INTERVIEW_API_MODULE_OPTIONS,
  InterviewApiConfigurableModule,
  type InterviewApiForRootAsyncOptions,
  type InterviewApiForRootOptions,
} from './interview-api.module-definition.js';
import {
  type InterviewApiModuleOptions,
  resolveDataSource,
  resolveOptions,
  type ResolvedOptions,
  resolveResources,
  type ResourceDefinition,
} from './interview-api.options.js';
import { Paginator } from './pagination/paginator.js';
import { createResourceController } from './resources/resource-controller.factory.js';
import { CallingKeyController } from './auth/calling-key.controller.js';
import { WebhookEndpointEntity } from './webhook-endpoints/webhook-endpoint.entity.js';
import { WebhookEndpointsController } from './webhook-endpoints/webhook-endpoints.controller.js';
import { EndpointRegistry } from './webhook-endpoints/endpoint-registry.js';
import { WebhookEndpointsService } from './webhook-management/webhook-endpoints.service.js';

export const INTERVIEW_API_ENTITIES = [
  ApiKeyEntity,
  WebhookEndpointEntity,
  EventEntity,
  DeliveryEntity,
  PendingDeliveryEntity,
  AttemptEntity,
  IdempotencyKeyEntity,
  InstallationEntity,
];

/**
 * The developer platform as one module: API keys, the /v1 routes, webhooks and events. Global, so
 * that host controllers anywhere can use its guard, paginator and services.
 */
@Module({})
export class InterviewApiModule extends InterviewApiConfigurableModule {
  static override forRoot<E extends readonly object[]>(
    options: InterviewApiForRootOptions<E>,
  ): DynamicModule {
    return InterviewApiModule.withRoutes(super.forRoot(options), options.resources, options.dataSource);
  }

  static override forRootAsync<E extends readonly object[]>(
    options: InterviewApiForRootAsyncOptions<E>,
  ): DynamicModule {
    return InterviewApiModule.withRoutes(super.forRootAsync(options), options.resources, options.dataSource);
  }

  private static withRoutes(
    base: DynamicModule,
    resources: readonly ResourceDefinition[] | undefined,
    dataSource: string | undefined,
  ): DynamicModule {
    const resolved = resolveResources(resources);
    const name = resolveDataSource(dataSource);
    const resourceEntities = [...new Set(resolved.map((resource) => resource.entity))];
    // Registers the entities, the resources' too, with the DataSource, so that with autoLoadEntities
    // the host need not list them. Its repository providers are not imported (the module reads
    // through INTERVIEW_DATA_SOURCE): a name no DataSource has would fail them in Nest's words.
    TypeOrmModule.forFeature([...INTERVIEW_API_ENTITIES, ...resourceEntities], name);
    return {
      ...base,
      global: true,
      controllers: [
        CallingKeyController,
        WebhookEndpointsController,
        DeliveriesController,
        EventsController,
        ...resolved.map(createResourceController),
      ],
      providers: [
        ...(base.providers ?? []),
        {
          provide: INTERVIEW_API_OPTIONS,
          useFactory: (options: InterviewApiModuleOptions): ResolvedOptions => resolveOptions(options, name),
          inject: [INTERVIEW_API_MODULE_OPTIONS],
        },
        interviewDataSourceProvider(name),
        // Before the queue is built: its keys are named after the installation. The first read of
        // the module's tables, so the entities and the schema they are read from are checked first.
        {
          provide: INSTALLATION_ID,
          useFactory: async (dataSource: DataSource): Promise<string> => {
            checkEntities(dataSource, INTERVIEW_API_ENTITIES, resolved);
            await checkSchema(dataSource);
            return readInstallationId(dataSource);
          },
          inject: [INTERVIEW_DATA_SOURCE],
        },
        SECRET_CIPHER_PROVIDER,
        Clock,
        ClockAlignment,
        LastUsedTracker,
        ApiKeysService,
        RateLimiter,
        ApiKeyGuard,
        Paginator,
        V1Fallback,
        EventTypes,
        EventPublisher,
        EventsService,
        EventRetention,
        EndpointRegistry,
        DeliveriesService,
        WebhookEndpointsService,
        DeliveryQueue,
        DeliveryDispatcher,
        DeliveryStore,
        DELIVERY_PROCESSOR_PROVIDER,
        DeliveryWorker,
        DeliverySweeper,
        IdempotencyStore,
        IdempotencyInterceptor,
        IdempotencyRetention,
      ],
      exports: [
        // The guard and the filter read serviceName for their 401 challenge, in the host's modules too.
        INTERVIEW_API_OPTIONS,
        ApiKeysService,
        RateLimiter,
        ApiKeyGuard,
        Paginator,
        EventPublisher,
        WebhookEndpointsService,
        IdempotencyStore,
        IdempotencyInterceptor,
      ],
    };
  }
}
