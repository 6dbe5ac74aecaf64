export type WebhookVerificationFailure =
  'missing_headers' | 'timestamp_out_of_tolerance' | 'invalid_signature';

/** Why a delivery was refused, so a receiver can log the cause without parsing messages. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
