import { Injectable } from '@nestjs/common';
import { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from '../../lib/index.js';

export type Verification = 'verified' | 'invalid' | 'skipped';

export interface ReceivedWebhook {
  received_at: string;
  webhook_id: string | null;
  event_type: string | null;
  event_id: string | null;
  data_id: string | null;
  /** The endpoint whose secret verified the signature; null when none did or it came from the environment. */
  endpoint_id: string | null;
  verification: Verification;
  /** Why the signature was refused, or why it was not checked. */
  detail: string | null;
  answered: number;
}

const KEEP = 25;

/** The label of the secret given at start-up (DEMO_WEBHOOK_SECRET), which names no endpoint. */
const ENVIRONMENT_SECRET = '';

/**
 * A customer's webhook receiver, in the demo's process. It verifies with the secrets it was given
 * (by the Developers page, or DEMO_WEBHOOK_SECRET); without any it still records deliveries, marked
 * "skipped", which a real receiver must not do.
 */
@Injectable()
export class DemoReceiverService {
  /** One secret per endpoint, as a customer keeps it in their config: a rotation replaces it. */
  private readonly secrets = new Map<string, string>();
  private readonly received: ReceivedWebhook[] = [];
  /** When set, the receiver answers 500, to watch retries and the attempt log. */
  failing = false;

  constructor() {
    const secret = process.env.DEMO_WEBHOOK_SECRET;
    if (secret && !DemoReceiverService.canVerifyWith(secret)) {
      throw new Error(
        'DEMO_WEBHOOK_SECRET must be the whsec_... secret of an endpoint (base64 after whsec_).',
      );
    }
    if (secret) this.secrets.set(ENVIRONMENT_SECRET, secret);
  }

  /**
   * Whether verifyWebhook can check signatures with `secret`: an unsigned probe fails with a plain
   * Error for a malformed secret (not base64 after whsec_), with a WebhookVerificationError otherwise.
   */
  static canVerifyWith(secret: string): boolean {
    const now = String(Math.floor(Date.now() / 1000));
    try {
      verifyWebhook(
        '{}',
        { 'webhook-id': 'msg_probe', 'webhook-timestamp': now, 'webhook-signature': 'v1,' },
        secret,
      );
    } catch (error) {
      return error instanceof WebhookVerificationError;
    }
    return false;
  }

  /** Keeps `secret` as the one of `endpointId`, replacing the one it had. */
  setSecret(endpointId: string, secret: string): void {
    this.secrets.set(endpointId, secret);
  }

  get secretCount(): number {
    return this.secrets.size;
  }

  /** The endpoints the receiver holds a secret of. */
  get endpointsKnown(): string[] {
    return [...this.secrets.keys()].filter((label) => label !== ENVIRONMENT_SECRET);
  }

  recent(): ReceivedWebhook[] {
    return [...this.received];
  }

  clear(): void {
    this.received.length = 0;
  }

  /** Checks one delivery and records it; returns the status to answer with. */
  receive(rawBody: Buffer | undefined, headers: WebhookHeaders): number {
    const body = rawBody ?? Buffer.alloc(0);
    const { verification, detail, endpointId } = this.verify(body, headers);
    const status = verification === 'invalid' ? 400 : this.failing ? 500 : 200;
    const event = parseEvent(body);
    const header = (name: string): string | null => {
      const value = (headers as Record<string, string | string[] | undefined>)[name];
      return Array.isArray(value) ? value.join(' ') : (value ?? null);
    };
    this.received.unshift({
      received_at: new Date().toISOString(),
      webhook_id: header('webhook-id'),
      event_type: event?.type ?? null,
      event_id: event?.id ?? null,
      data_id: event?.data?.object?.id ?? null,
      endpoint_id: endpointId,
      verification,
      detail,
      answered: status,
    });
    this.received.length = Math.min(this.received.length, KEEP);
    return status;
  }

  private verify(
    body: Buffer,
    headers: WebhookHeaders,
  ): { verification: Verification; detail: string | null; endpointId: string | null } {
    if (this.secrets.size === 0) {
      return {
        verification: 'skipped',
        detail: 'no signing secret known: set DEMO_WEBHOOK_SECRET',
        endpointId: null,
      };
    }
    let failure = 'no secret matched';
    for (const [label, secret] of this.secrets) {
      try {
        // The raw bytes as received: JSON re-serialised from req.body would not match the signature.
        verifyWebhook(body, headers, secret, { toleranceSeconds: 300 });
        return {
          verification: 'verified',
          detail: null,
          endpointId: label === ENVIRONMENT_SECRET ? null : label,
        };
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        failure = `${error.reason}: ${error.message}`;
      }
    }
    return { verification: 'invalid', detail: failure, endpointId: null };
  }
}

interface ParsedEvent {
  id?: string;
  type?: string;
  data?: { object?: { id?: string } };
}

function parseEvent(body: Buffer): ParsedEvent | null {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' ? (parsed as ParsedEvent) : null;
  } catch {
    return null;
  }
}
