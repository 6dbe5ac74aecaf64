import { Inject, Injectable } from '@nestjs/common';
import { INTERVIEW_API_OPTIONS } from '../interview-api.constants.js';
import type { ResolvedOptions } from '../interview-api.options.js';

/** Stripe's group of types: `result.*` is every type under `result.`. */
const GROUP_SUFFIX = '.*';

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

  /**
   * The known types a `type` filter selects: the type itself, or every type of a group such as
   * `result.*`. Empty when it selects none, which includes any other use of `*`.
   */
  selectedBy(filter: string): string[] {
    if (!filter.endsWith(GROUP_SUFFIX)) return this.isKnown(filter) ? [filter] : [];
    const prefix = filter.slice(0, -1);
    return this.all.filter((type) => type.startsWith(prefix));
  }
}
