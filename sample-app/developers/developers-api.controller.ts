import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import {
  ApiExceptionFilter,
  ApiKeysService,
  ParameterInvalidError,
  type ApiKeyView,
  type CreatedApiKey,
  type Scope,
} from '../../lib/index.js';
import { DEMO_CONFIG, type DemoConfig } from '../demo-config.js';
import { DemoReceiverService, type ReceivedWebhook } from '../receiver/demo-receiver.service.js';
import {
  DemoSessionsService,
  type RolledBackChange,
  type SessionChange,
} from '../sessions/demo-sessions.service.js';
import type { SessionView } from '../sessions/session-view.js';
import { LocalDashboardGuard } from './local-dashboard.guard.js';

interface CreateKeyBody {
  name?: unknown;
  mode?: unknown;
  scopes?: unknown;
}

function livemodeOf(mode: unknown): boolean {
  if (mode === undefined || mode === 'test') return false;
  if (mode === 'live') return true;
  throw new ParameterInvalidError('mode', 'mode must be "test" or "live".');
}

/**
 * The dashboard's own routes, behind the host's login in a real app (here one user, one account).
 * They call the module's services directly: keys are managed here, never through /v1. The module's
 * error filter is reused so that the page reads one error shape everywhere.
 */
@Controller('developers/api')
@UseGuards(LocalDashboardGuard)
@UseFilters(ApiExceptionFilter)
export class DevelopersApiController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly sessions: DemoSessionsService,
    private readonly receiver: DemoReceiverService,
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
  ) {}

  @Get('keys')
  async listKeys(): Promise<{ data: ApiKeyView[] }> {
    return { data: await this.keys.list(this.config.accountId) };
  }

  /** The only answer that ever contains the full key. A key without scopes could call nothing. */
  @Post('keys')
  createKey(@Body() body: CreateKeyBody | undefined): Promise<CreatedApiKey> {
    const { name, mode, scopes } = body ?? {};
    if (!Array.isArray(scopes) || scopes.length === 0) {
      throw new ParameterInvalidError(
        'scopes',
        'Choose at least one scope: a key without scopes can call nothing.',
      );
    }
    return this.keys.create({
      accountId: this.config.accountId,
      name: typeof name === 'string' ? name : '',
      mode: livemodeOf(mode) ? 'live' : 'test',
      scopes: scopes as Scope[],
      creatorScopes: this.config.userScopes,
    });
  }

  @Delete('keys/:id')
  @HttpCode(200)
  async revokeKey(@Param('id') id: string): Promise<{ id: string; revoked: true }> {
    await this.keys.revoke(this.config.accountId, id);
    return { id, revoked: true };
  }

  @Get('sessions')
  async listSessions(): Promise<{ data: SessionView[] }> {
    return { data: await this.sessions.list() };
  }

  @Post('sessions')
  startSession(
    @Body() body: { mode?: unknown; candidate_name?: unknown } | undefined,
  ): Promise<SessionChange> {
    const { mode, candidate_name: candidateName } = body ?? {};
    return this.sessions.start({
      livemode: livemodeOf(mode),
      candidateName: typeof candidateName === 'string' ? candidateName : undefined,
    });
  }

  /** Shows the other half of the pattern: a failure before COMMIT leaves no event and sends nothing. */
  @Post('sessions/rollback-demo')
  @HttpCode(200)
  startThenRollBack(@Body() body: { mode?: unknown } | undefined): Promise<RolledBackChange> {
    return this.sessions.startThenRollBack({ livemode: livemodeOf(body?.mode) });
  }

  @Post('sessions/:id/complete')
  @HttpCode(200)
  completeSession(@Param('id') id: string): Promise<SessionChange> {
    return this.sessions.complete(id);
  }

  @Get('receiver')
  receiverState(): {
    url: string;
    secrets_known: number;
    endpoints_known: string[];
    failing: boolean;
    received: ReceivedWebhook[];
  } {
    return {
      url: this.config.receiverUrl,
      secrets_known: this.receiver.secretCount,
      endpoints_known: this.receiver.endpointsKnown,
      failing: this.receiver.failing,
      received: this.receiver.recent(),
    };
  }

  /**
   * Hands the receiver an endpoint's signing secret, as a customer would put it in their config; a
   * rotated secret replaces the endpoint's previous one.
   */
  @Post('receiver/secrets')
  @HttpCode(200)
  setReceiverSecret(@Body() body: { secret?: unknown; endpoint_id?: unknown } | undefined): {
    secrets_known: number;
  } {
    const secret = body?.secret;
    const endpointId = body?.endpoint_id;
    if (typeof endpointId !== 'string' || !/^whk_[0-9a-z]+$/.test(endpointId)) {
      throw new ParameterInvalidError('endpoint_id', 'endpoint_id must be the whk_... id of an endpoint.');
    }
    if (typeof secret !== 'string' || !DemoReceiverService.canVerifyWith(secret)) {
      throw new ParameterInvalidError('secret', 'secret must be the whsec_... value of an endpoint.');
    }
    this.receiver.setSecret(endpointId, secret);
    return { secrets_known: this.receiver.secretCount };
  }

  @Post('receiver/failing')
  @HttpCode(200)
  setReceiverFailing(@Body() body: { failing?: unknown } | undefined): { failing: boolean } {
    this.receiver.failing = body?.failing === true;
    return { failing: this.receiver.failing };
  }

  @Delete('receiver/received')
  @HttpCode(200)
  clearReceived(): { cleared: true } {
    this.receiver.clear();
    return { cleared: true };
  }
}
