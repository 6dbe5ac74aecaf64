import { Controller, Get, Header, Inject, NotFoundException, Param, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { BUILT_IN_EVENT_TYPES, SCOPES } from '../../lib/index.js';
import { DEMO_ALLOWS_INSECURE_URLS, DEMO_CONFIG, HOST_EVENT_TYPES, type DemoConfig } from '../demo-config.js';
import { loadDevelopersAssets, type DevelopersAsset } from './developers-assets.js';
import { renderDevelopersPage } from './developers-page.js';
import { LocalDashboardGuard } from './local-dashboard.guard.js';

/** `GET /developers`: plain server-rendered HTML, and its scripts and styles as they are, no build step. */
@Controller('developers')
@UseGuards(LocalDashboardGuard)
export class DevelopersPageController {
  private readonly assets: ReadonlyMap<string, DevelopersAsset> = loadDevelopersAssets();

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
      insecureUrlsAllowed: DEMO_ALLOWS_INSECURE_URLS,
    });
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    const asset = this.assets.get(file);
    if (!asset) throw new NotFoundException(`No asset ${file}.`);
    res.setHeader('content-type', asset.contentType);
    res.setHeader('cache-control', 'no-store');
    res.send(asset.body);
  }
}
