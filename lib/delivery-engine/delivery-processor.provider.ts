import type { FactoryProvider } from '@nestjs/common';
import { Clock } from '../clock/clock.js';
import { DeliveryStore } from '../delivery-store/delivery-store.js';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { DeliveryProcessor } from './delivery-processor.js';

/**
 * The sending runtime (its HTTP agent, fair-send scheduler, claim renewer and recorder) is built
 * only in a process that runs the worker: with `worker: false` this provides null.
 */
export const DELIVERY_PROCESSOR_PROVIDER: FactoryProvider<DeliveryProcessor | null> = {
  provide: DeliveryProcessor,
  useFactory: (
    store: DeliveryStore,
    dispatcher: DeliveryDispatcher,
    clock: Clock,
    options: ResolvedOptions,
  ): DeliveryProcessor | null =>
    options.worker ? new DeliveryProcessor(store, dispatcher, clock, options) : null,
  inject: [DeliveryStore, DeliveryDispatcher, Clock, INTERVIEW_API_OPTIONS],
};
