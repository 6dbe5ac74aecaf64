import { Inject, Injectable } from '@nestjs/common';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';

/** The event types endpoints may subscribe to: the built-in ones plus the host's. */
@Injectable()
export class EventTypes {
  readonly all: readonly string[];

  constructor(@Inject(INTERVIEW_API_OPTIONS) options: ResolvedOptions) {
    this.all = options.eventTypes;
  }

  isKnown(type: string): boolean {
    return this.all.includes(type);
  }
}
