import { Controller, Post, Req, Res, type RawBodyRequest } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DemoReceiverService } from './demo-receiver.service.js';

/**
 * `POST /demo-receiver`: a webhook endpoint to point the module at while trying things locally.
 * The app is created with `rawBody: true`, so `req.rawBody` holds the exact bytes that were signed.
 */
@Controller('demo-receiver')
export class DemoReceiverController {
  constructor(private readonly receiver: DemoReceiverService) {}

  @Post()
  receive(@Req() req: RawBodyRequest<Request>, @Res() res: Response): void {
    const status = this.receiver.receive(req.rawBody, req.headers);
    res.status(status).json({ received: status < 300 });
  }
}
