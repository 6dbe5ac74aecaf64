import { IdParamPipe } from '../request/id-param.pipe.js';
import { validatedAs } from '../request/validation.pipe.js';
import { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhook-endpoint.dto.js';

// The endpoint routes' validation, one for the routes and for WebhookEndpointsService alike.

export const endpointIdParam = new IdParamPipe('webhook endpoint');
export const createEndpointBody = validatedAs(CreateWebhookEndpointDto);
export const updateEndpointBody = validatedAs(UpdateWebhookEndpointDto);
