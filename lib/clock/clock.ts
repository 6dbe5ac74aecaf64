import { Injectable } from '@nestjs/common';

/** The module's one source of time, so that every timestamp of one operation agrees. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
