import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Controller, Get, Header, Inject, UseGuards } from '@nestjs/common';
import { BUILT_IN_EVENT_TYPES, SCOPES } from '../../lib/index.js';
import { DEMO_CONFIG, HOST_EVENT_TYPES, type DemoConfig } from '../demo-config.js';
import { renderDevelopersPage } from './developers-page.js';
import { LocalDashboardGuard } from './local-dashboard.guard.js';

/** The page's script, read from the source tree: tsc does not copy .js assets into .demo-build. */
function loadClientScript(): string {
  const candidates = [
    new URL('./public/developers.js', import.meta.url),
    new URL('../../../sample-app/developers/public/developers.js', import.meta.url),
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`developers.js not found in ${candidates.join(' or ')}`);
  return readFileSync(found, 'utf8');
}

/** `GET /developers`: plain server-rendered HTML and one small vanilla script, no build step. */
@Controller('developers')
@UseGuards(LocalDashboardGuard)
export class DevelopersPageController {
  private readonly script = loadClientScript();

  constructor(@Inject(DEMO_CONFIG) private readonly config: DemoConfig) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  page(): string {
    return renderDevelopersPage({
      accountId: this.config.accountId,
      keyPrefix: this.config.keyPrefix,
      userScopes: this.config.userScopes,
      allScopes: [...SCOPES],
      eventTypes: [...HOST_EVENT_TYPES, ...BUILT_IN_EVENT_TYPES.filter((type) => type !== 'webhook.test')],
      receiverUrl: this.config.receiverUrl,
    });
  }

  @Get('app.js')
  @Header('content-type', 'text/javascript; charset=utf-8')
  @Header('cache-control', 'no-store')
  clientScript(): string {
    return this.script;
  }
}
