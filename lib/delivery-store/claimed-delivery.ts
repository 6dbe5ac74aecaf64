import type { WebhookEndpointStatus } from '../webhook-endpoints/webhook-endpoint.entity.js';
import type { DeliveryErrorCode, DeliveryStatus } from './delivery.entity.js';

/** What a delivery is sent to; null once the endpoint is deleted. */
export interface DeliveryTarget {
  url: string;
  secret: string;
  status: WebhookEndpointStatus;
  /** How many times the endpoint's pending retries had been dropped when this was read. */
  retryDrops: number;
}

/** A delivery this worker now holds (its claim is renewed while it does), with what it needs to be sent. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  /** Its account and mode (`acct_1:live`): their endpoints share one share of a worker's send slots. */
  tenant: string;
  eventId: string;
  /** Attempts made before this one. */
  attempt: number;
  /** The claim's stamp: its outcome is recorded only while this claim still holds the delivery. */
  claimedAt: Date;
  target: DeliveryTarget | null;
  /** The event body; null once the event is purged, or when it was left unread (`bodyUnread`). */
  payload: string | null;
  /**
   * Its endpoint had no room for another send in this worker when it was claimed: its body was not
   * read, and it is given back unsent.
   */
  bodyUnread: boolean;
}

/** The result of one attempt, and the delivery state it leads to. */
export interface DeliveryOutcome {
  delivery: ClaimedDelivery;
  /**
   * False when nothing was sent: the delivery ends unsent (its endpoint gone or disabled, its event
   * purged) or is given back unsent, to be claimed again later.
   */
  attempted: boolean;
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  error: DeliveryErrorCode | null;
  durationMs: number | null;
  nextAttemptAt: Date | null;
  /**
   * The URL that answered 410 Gone, the receiver's word that it wants no more webhooks: its
   * endpoint is disabled, unless its URL has changed since the attempt began.
   */
  goneUrl: string | null;
}
