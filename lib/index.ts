export { InterviewApiModule, INTERVIEW_API_ENTITIES } from './interview-api.module.js';
export type {
  InterviewApiFactoryOptions,
  InterviewApiForRootAsyncOptions,
  InterviewApiForRootOptions,
} from './interview-api.module-definition.js';
export type {
  FailedAuthenticationLimit,
  InterviewApiModuleOptions,
  RateLimitOptions,
  ResourceDefinition,
  WebhookOptions,
} from './interview-api.options.js';
export { InvalidModuleOptionsError, BUILT_IN_EVENT_TYPES } from './interview-api.options.js';

export { SCOPES, isScope, type Scope } from './auth/scopes.js';
export { ApiKeysService, type CreateApiKeyInput, type CreatedApiKey } from './auth/api-keys.service.js';
export type { KeyMode } from './auth/api-key-format.js';
export type { ApiKeyView } from './auth/api-key.view.js';
export type { AuthenticatedApiKey } from './auth/authenticated-api-key.js';
export type { AccountScope } from './auth/account-scope.js';
export { ApiKeyGuard } from './auth/api-key.guard.js';
export { isApiKeyRoute } from './auth/is-api-key-route.js';
export { RequireScopes } from './auth/require-scopes.decorator.js';
export { CurrentApiKey } from './auth/current-api-key.decorator.js';
export { ApiV1Controller } from './auth/api-v1-controller.decorator.js';
export { ApiKeyEntity } from './auth/api-key.entity.js';

export * from './errors/api-error.js';
export type { RateLimitState } from './errors/rate-limit-headers.js';
export { ApiExceptionFilter } from './errors/api-exception.filter.js';
export { IdParamPipe } from './request/id-param.pipe.js';

export { Paginator, type PageRequest, type PaginatedColumns } from './pagination/paginator.js';
export { parseListParams, type ListParams, type ListQuery } from './pagination/list-params.js';
export type { ListEnvelope } from './pagination/list-envelope.js';

export { EventPublisher } from './events/event-publisher.js';
export type { PublishEventInput, PublishOptions } from './events/publish-event.input.js';
export type { ApiEvent } from './events/api-event.js';
export { EventEntity } from './events/event.entity.js';
export { WebhookEndpointEntity } from './webhook-endpoints/webhook-endpoint.entity.js';
export type {
  DeletedWebhookEndpoint,
  WebhookEndpointView,
} from './webhook-endpoints/webhook-endpoint.view.js';
export type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
} from './webhook-endpoints/webhook-endpoint.input.js';
export { WebhookEndpointsService } from './webhook-management/webhook-endpoints.service.js';
export type { DeliveryListQuery } from './deliveries/delivery.route-inputs.js';
export { DeliveryEntity } from './delivery-store/delivery.entity.js';
export { PendingDeliveryEntity } from './delivery-store/pending-delivery.entity.js';
export { AttemptEntity } from './delivery-store/attempt.entity.js';
export { IdempotencyKeyEntity } from './idempotency/idempotency-key.entity.js';
export { InstallationEntity } from './installation/installation.entity.js';
export type { DeliveryView, AttemptView } from './deliveries/delivery.view.js';

export {
  verifyWebhook,
  WebhookVerificationError,
  type HeadersLike,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationFailure,
} from './signing/index.js';

export {
  createInterviewApiDocument,
  type InterviewApiDocumentOptions,
} from './openapi/interview-api-document.js';
export { addInterviewApiWebhooks } from './openapi/interview-api-webhooks.js';

export {
  POSTGRES_MIGRATIONS,
  SQLITE_MIGRATIONS,
  interviewApiMigrations,
  type InterviewApiMigration,
  type InterviewApiMigrationsType,
} from './migrations/index.js';
