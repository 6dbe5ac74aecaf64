import type { EntityManager } from 'typeorm';

export interface PublishEventInput {
  accountId: string;
  /** A built-in or registered type. */
  type: string;
  livemode: boolean;
  /** The resource as the API returns it. */
  data: { id: string; object: string; [field: string]: unknown };
}

export interface PublishOptions {
  /** The host's transaction: the event and its deliveries commit or roll back with it. */
  manager?: EntityManager;
}
