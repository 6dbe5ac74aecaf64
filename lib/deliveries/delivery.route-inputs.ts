import type { DeliveryStatus } from '../delivery-store/delivery.entity.js';
import type { ListQuery } from '../pagination/list-params.js';
import { IdParamPipe } from '../request/id-param.pipe.js';

// The delivery routes' validation, one for the routes and for WebhookEndpointsService alike.

export const deliveryIdParam = new IdParamPipe('webhook delivery');

/** The filters of an endpoint's deliveries list, besides the shared list parameters. */
export const DELIVERY_FILTERS = ['status', 'event_id'];

/** The query of GET /v1/webhook_endpoints/{id}/deliveries, as a caller in the process gives it. */
export interface DeliveryListQuery extends ListQuery {
  status?: DeliveryStatus;
  event_id?: string;
}
