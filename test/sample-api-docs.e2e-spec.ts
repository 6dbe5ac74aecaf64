import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import request from 'supertest';
import { createInterviewApiDocument } from '../lib/index.js';
import { serveApiDocs } from '../sample-app/api-docs/serve-api-docs.js';
import { WAIT_MS } from './support/receiver.js';
import { closedAfterEachTest } from './support/per-test.js';

/** The Chromium the browser test drives: CHROMIUM_PATH, or the system's. */
function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((path) => path !== undefined && existsSync(path));
  if (found === undefined) throw new Error('No Chromium found: set CHROMIUM_PATH to a Chromium executable.');
  return found;
}

describe('the sample app’s API reference', () => {
  const { boot } = closedAfterEachTest();

  it('serves the document at /openapi.json, outside /v1 and without a key', async () => {
    const host = await boot({ configure: (app) => serveApiDocs(app) });
    const res = await request(host.app.getHttpServer()).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(
      JSON.parse(
        JSON.stringify(createInterviewApiDocument(host.app, { title: 'Interview API', version: '1' })),
      ),
    );
  });

  it('renders /docs from the app’s own files, loading nothing from another origin', async () => {
    const host = await boot({ configure: (app) => serveApiDocs(app) });
    const server = host.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (sent) => requested.push(sent.url()));
      await page.goto(`${origin}/docs`);
      await page.getByText('List events').first().waitFor({ timeout: WAIT_MS });
      await page.getByText('result.ready').first().waitFor({ timeout: WAIT_MS });
      const elsewhere = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
      expect(elsewhere).toEqual([]);
      expect(requested).toEqual(expect.arrayContaining([`${origin}/docs/swagger-ui-bundle.js`]));
    } finally {
      await browser.close();
    }
  });
});
