import type { Page } from 'playwright-core';
import { chromiumPresent, CHROMIUM, launchBrowser, type TestBrowser } from './support/browser.js';
import { startDemoApp, type DemoApp } from './support/demo-app.js';
import { eventually, WAIT_MS } from './support/receiver.js';
import { lowContrastTexts } from './support/text-contrast.js';

interface ReceivedWebhook {
  received_at: string;
  event_type: string | null;
  event_id: string | null;
  endpoint_id: string | null;
  verification: string;
  answered: number;
}

const WAIT = { timeout: WAIT_MS };
/** The whole walk of the first test: dozens of steps, each with its own deadline. */
const WALK_MS = 4 * WAIT_MS;
const describeInChromium = chromiumPresent() ? describe : describe.skip;

/** How far the page scrolls sideways: 0 when nothing is wider than the window. */
const sidewaysScroll = async (page: Page): Promise<number> =>
  Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));

describeInChromium(
  chromiumPresent()
    ? 'the Developers page in a real browser'
    : `the Developers page in a real browser (skipped: no Chromium at ${CHROMIUM}; install the Debian package chromium)`,
  () => {
    let app: DemoApp;
    let browser: TestBrowser;
    let page: Page;
    /** Errors thrown by the page's scripts: none is expected anywhere. */
    const pageErrors: string[] = [];
    /** The Idempotency-Key of each POST the page sent to /v1 (undefined when it sent none). */
    const v1Posts: (string | undefined)[] = [];
    /** The key and the endpoint with eleven deliveries that the "Load more" test made, for the tests after it. */
    const paged = { key: '', keyId: '', endpointId: '' };

    const dashboard = async <T>(path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
      const answer = await fetch(`${app.baseUrl}/developers/api${path}`, init);
      return { status: answer.status, body: (await answer.json()) as T };
    };
    /** A /v1 request with `key`: a GET, or `method` with `body` as JSON. */
    const v1 = async <T>(
      key: string,
      path: string,
      send?: { method: 'POST' | 'PATCH'; body: object },
    ): Promise<{ status: number; body: T }> => {
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const answer = await fetch(`${app.baseUrl}/v1${path}`, {
        headers,
        ...(send ? { method: send.method, body: JSON.stringify(send.body) } : {}),
      });
      return { status: answer.status, body: (await answer.json()) as T };
    };
    /** A key made through the host's route (not yet used by the page), with its id. */
    const newKey = async (mode: 'test' | 'live', scopes: string[]): Promise<{ key: string; id: string }> => {
      const created = await dashboard<{ key: string; apiKey: { id: string } }>('/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `${mode} ${scopes.join(' ')}`, mode, scopes }),
      });
      expect(created.status).toBe(201);
      return { key: created.body.key, id: created.body.apiKey.id };
    };
    /** Pastes `key` into the page's key field, as a user would, and waits until the page uses it. */
    const pasteKey = async ({ key, id }: { key: string; id: string }): Promise<void> => {
      await page.locator('#active-key').fill(key);
      await page.locator('#active-key').press('Tab');
      await page.locator('#active-key-info', { hasText: id }).waitFor();
    };
    /** The data-key of each row of a table body, in order. */
    const rowKeys = (tbody: string): Promise<(string | undefined)[]> =>
      page.locator(`${tbody} tr`).evaluateAll((rows) => rows.map((row) => row.dataset.key));
    const received = async (): Promise<ReceivedWebhook[]> =>
      (await dashboard<{ received: ReceivedWebhook[] }>('/receiver')).body.received;
    /** Waits until the button is no longer busy with its request. */
    const idle = (selector: string): Promise<void> =>
      page
        .locator(`${selector}:not([aria-busy])`)
        .waitFor(WAIT)
        .then(() => undefined);
    const atWidth = async (width: number): Promise<number> => {
      await page.setViewportSize({ width, height: 900 });
      return sidewaysScroll(page);
    };

    beforeAll(async () => {
      app = await startDemoApp();
      browser = await launchBrowser({ width: 1280, height: 900 });
      page = browser.page;
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname.startsWith('/v1/'))
          v1Posts.push(request.headers()['idempotency-key']);
      });
      page.setDefaultTimeout(WAIT_MS);
    }, 2 * WAIT_MS);

    afterEach(() => expect(pageErrors).toEqual([]));

    afterAll(async () => {
      await browser?.close();
      await app?.stop();
    }, WAIT_MS);

    it(
      'walks from a new key to verified, retried, replayed and re-signed webhooks, then revokes the key',
      async () => {
        await page.goto(`${app.baseUrl}/developers`);
        await page.locator('#keys-body td.empty', { hasText: 'No keys yet.' }).waitFor();
        await browser.screenshot('empty');
        const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select')]
        .filter((field) => field.type !== 'hidden' && field.labels.length === 0
          && !field.getAttribute('aria-label') && !field.getAttribute('aria-labelledby'))
        .map((field) => field.id || field.name)`);
        expect(unlabelled).toEqual([]);
        expect(await atWidth(1280)).toBe(0);
        expect(await atWidth(390)).toBe(0);
        await page.setViewportSize({ width: 1280, height: 900 });

        // A key without scopes: the error next to the scopes and in the live region, and no key made.
        for (const scope of await page.locator('#key-scopes input').all()) await scope.uncheck();
        await page.getByRole('button', { name: 'Create key' }).click();
        const scopesError = page.locator('#key-scopes-error');
        await expect(scopesError.textContent()).resolves.toMatch(/at least one scope/);
        expect(await page.locator('#live-errors').textContent()).toBe(await scopesError.textContent());
        expect((await dashboard<{ data: unknown[] }>('/keys')).body.data).toHaveLength(0);
        // The host's route refuses it too, in the API's error envelope.
        const noScopes = await dashboard<{ error: { code: string; param: string } }>('/keys', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'none', mode: 'test', scopes: [] }),
        });
        expect([noScopes.status, noScopes.body.error.code, noScopes.body.error.param]).toEqual([
          400,
          'parameter_invalid',
          'scopes',
        ]);
        expect((await dashboard<{ data: unknown[] }>('/keys')).body.data).toHaveLength(0);
        await browser.screenshot('key-without-scopes');

        // A double click creates one key, shown once, which the page then uses.
        await page.locator('#key-scopes input[value="developers:manage"]').check();
        await page.locator('#key-scopes input[value="results:read"]').check();
        await page.getByRole('button', { name: 'Create key' }).dblclick();
        await page.locator('#new-key').waitFor();
        await idle('#key-form button[type=submit]');
        await page.locator('#active-key-info', { hasText: 'scopes: ' }).waitFor();
        const keys = (await dashboard<{ data: { id: string }[] }>('/keys')).body.data;
        expect(keys).toHaveLength(1);
        const key = await page.locator('#active-key').inputValue();
        expect(key).toMatch(/^iv_test_/);
        expect(await page.locator('#new-key-value .text').textContent()).toBe(key);
        expect(await page.locator('#active-key-info').textContent()).toContain(keys[0].id);
        expect((await v1(key, '/ping')).status).toBe(200);
        await browser.screenshot('key-created');

        // A URL the API refuses: its message next to the URL field and in the live region; nothing added.
        await page.locator('#endpoint-url').fill('not a url');
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        const urlError = page.locator('#endpoint-url-error');
        await urlError.filter({ hasText: /\S/ }).waitFor();
        const urlMessage = (await urlError.textContent()) ?? '';
        expect(urlMessage).toMatch(/url/i);
        expect(await page.locator('#endpoint-url').getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('#live-errors').textContent()).toBe(urlMessage);
        expect((await v1<{ data: unknown[] }>(key, '/webhook_endpoints')).body.data).toHaveLength(0);
        await browser.screenshot('endpoint-url-refused');

        // A double click adds one endpoint at the demo receiver, which gets its secret.
        await page.locator('#endpoint-url').fill(`${app.baseUrl}/demo-receiver`);
        await page.getByRole('button', { name: 'Add endpoint' }).dblclick();
        await page.locator('#endpoint-secret').waitFor();
        await idle('#endpoint-form button[type=submit]');
        const endpoints = (await v1<{ data: { id: string }[] }>(key, '/webhook_endpoints')).body.data;
        expect(endpoints).toHaveLength(1);
        const endpointId = endpoints[0].id;
        expect(await page.locator('#endpoint-detail-id').textContent()).toContain(endpointId);
        const firstSecret = await page.locator('#endpoint-secret .text').textContent();
        expect(firstSecret).toMatch(/^whsec_/);

        // A session started (double click: one) and completed: its webhooks arrive verified, named by endpoint.
        await page.getByRole('button', { name: 'Start session' }).dblclick();
        const completeButton = page.locator('#sessions-body button[data-action=complete]');
        await completeButton.waitFor();
        await idle('#session-form button[type=submit]');
        expect((await dashboard<{ data: unknown[] }>('/sessions')).body.data).toHaveLength(1);
        await completeButton.click();
        await page.locator('#sessions-body', { hasText: 'completed' }).waitFor();
        const verifiedRow = page.locator('#received-body tr', { hasText: 'session.completed' });
        await verifiedRow.filter({ hasText: 'verified' }).filter({ hasText: endpointId }).waitFor();
        await verifiedRow.locator('button[data-action=delivery]', { hasText: /^dlv_/ }).waitFor();
        const sessionWebhooks = (await received()).filter((webhook) =>
          webhook.event_type?.startsWith('session.'),
        );
        expect(sessionWebhooks.map((webhook) => [webhook.verification, webhook.endpoint_id])).toEqual([
          ['verified', endpointId],
          ['verified', endpointId],
        ]);
        await browser.screenshot('session-delivered');

        // An event links to its deliveries: the endpoint's list, filtered on it.
        await page.locator('#events-type').selectOption('session.completed');
        const completedEvent = page.locator('#events-body tr', { hasText: 'session.completed' });
        await completedEvent.waitFor();
        expect(await page.locator('#events-body tr').count()).toBe(1);
        await completedEvent.locator('button[data-action=open]').click();
        await page
          .locator('#event-detail')
          .getByRole('button', { name: /Show the deliveries of/ })
          .click();
        const completedId = await completedEvent.getAttribute('data-key');
        await page.locator('#deliveries-event', { hasText: completedId ?? 'none' }).waitFor();
        await page.locator('#deliveries-body tr', { hasText: 'session.completed' }).waitFor();
        expect(await page.locator('#deliveries-body tr').count()).toBe(1);
        await page.getByRole('button', { name: 'Show all events' }).click();
        await page.locator('#deliveries-body tr', { hasText: 'session.started' }).waitFor();
        await page.locator('#events-type').selectOption('');

        // Edited: a new description and one event type.
        await page.locator('#edit-description').fill('Edited from the page');
        await page.locator('#edit-events input[name=all-events]').check();
        expect(await page.locator('#edit-events input[name=events]:checked').count()).toBe(0);
        await page.locator('#edit-events input[name=all-events]').uncheck();
        await page.locator('#edit-events input[value="session.completed"]').check();
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.locator('#endpoint-facts dd', { hasText: 'Edited from the page' }).waitFor();
        const edited = await v1<{ description: string; enabled_events: string[] }>(
          key,
          `/webhook_endpoints/${endpointId}`,
        );
        expect([edited.body.description, edited.body.enabled_events]).toEqual([
          'Edited from the page',
          ['session.completed'],
        ]);
        expect(await lowContrastTexts(page)).toEqual([]);

        // The receiver answers 500: the test event's delivery is retried later, shown with a countdown.
        await page.locator('#receiver-failing').check();
        await eventually(async () => (await dashboard<{ failing: boolean }>('/receiver')).body.failing);
        await page.getByRole('button', { name: 'Send test event' }).click();
        const failedRow = page
          .locator('#deliveries-body tr', { hasText: 'webhook.test' })
          .filter({ has: page.locator('.badge', { hasText: /^500$/ }) });
        await failedRow.filter({ hasText: 'pending' }).waitFor();
        // Opened from the keyboard.
        const failedId = (await failedRow.locator('button[data-action=open]').textContent()) ?? '';
        expect(failedId).toMatch(/^dlv_/);
        await failedRow.locator('button[data-action=open]').focus();
        await page.keyboard.press('Enter');
        const delivery = page.locator('#delivery-detail');
        await delivery.locator('#delivery-next time').waitFor();
        expect(await delivery.locator('#delivery-next').textContent()).toMatch(/^in \d+ seconds?$|^due now$/);
        expect(await delivery.textContent()).toContain('Attempt 1');
        expect(await delivery.locator('ol.timeline .badge', { hasText: /^500$/ }).count()).toBe(1);
        expect(await delivery.locator('ol.timeline').textContent()).toContain('webhook-signature');
        // The receiver panel shows the failed request in the failure colour, with its endpoint.
        await page
          .locator('#received-body tr.failure', { hasText: 'webhook.test' })
          .filter({ hasText: endpointId })
          .waitFor();
        await browser.screenshot('retry-scheduled');

        // Replayed once the receiver answers again: the replay succeeds.
        await page.locator('#receiver-failing').uncheck();
        await eventually(async () => !(await dashboard<{ failing: boolean }>('/receiver')).body.failing);
        await delivery.getByRole('button', { name: 'Replay' }).click();
        await delivery.locator('.facts dd', { hasText: failedId }).waitFor();
        await delivery.locator('.facts .badge', { hasText: 'succeeded' }).waitFor();
        expect(await delivery.textContent()).toContain('Replay of');
        await page
          .locator('#deliveries-body tr', { hasText: 'replay of' })
          .filter({ hasText: 'succeeded' })
          .waitFor();
        await browser.screenshot('replayed');
        await page.locator('#deliveries-status').selectOption('succeeded');
        await page.locator('#deliveries-body tr', { hasText: 'replay of' }).waitFor();
        expect(await page.locator('#deliveries-body tr', { hasText: 'pending' }).count()).toBe(0);
        await page.locator('#deliveries-status').selectOption('');

        // A rotated secret: shown once, given to the receiver, which verifies the next webhooks with it.
        await page.getByRole('button', { name: 'Rotate secret' }).click();
        await page
          .locator('#endpoint-secret .text')
          .filter({ hasNotText: firstSecret ?? '' })
          .waitFor();
        expect(await page.locator('#endpoint-secret').textContent()).toContain('now verifies');
        await idle('#endpoint-rotate');
        const deliveriesPath = `/webhook_endpoints/${endpointId}/deliveries?limit=100`;
        type Deliveries = { data: { id: string; event_id: string }[] };
        const before = new Set((await v1<Deliveries>(key, deliveriesPath)).body.data.map(({ id }) => id));
        // A double click sends one test event.
        await page.getByRole('button', { name: 'Send test event' }).dblclick();
        await idle('#endpoint-test');
        const sent = await eventually(async () =>
          (await v1<Deliveries>(key, deliveriesPath)).body.data.find(({ id }) => !before.has(id)),
        );
        const added = (await v1<Deliveries>(key, deliveriesPath)).body.data.filter(
          ({ id }) => !before.has(id),
        );
        expect(added.map(({ id }) => id)).toEqual([sent.id]);
        const arrived = await eventually(async () =>
          (await received()).find((webhook) => webhook.event_id === sent.event_id),
        );
        expect([arrived.verification, arrived.endpoint_id]).toEqual(['verified', endpointId]);
        await page
          .locator('#received-body tr', { hasText: sent.event_id })
          .filter({ hasText: 'verified' })
          .waitFor();
        await browser.screenshot('rotated');

        // Disabled: sending a test event and replaying say why they cannot; enabled: they can again.
        await page.getByRole('button', { name: 'Disable' }).click();
        await page.locator('#endpoint-facts .badge', { hasText: 'disabled' }).waitFor();
        expect(await page.locator('#endpoint-test').isDisabled()).toBe(true);
        expect(await page.locator('#endpoint-reason').textContent()).toMatch(/Enable the endpoint/);
        await page.locator('#delivery-replay:disabled').waitFor();
        expect(await page.locator('#delivery-detail .actions .reason').textContent()).toMatch(
          /Enable the endpoint to replay/,
        );
        await browser.screenshot('disabled');
        await page.getByRole('button', { name: 'Enable' }).click();
        await page.locator('#endpoint-facts .badge', { hasText: 'enabled' }).waitFor();
        expect(await page.locator('#endpoint-test').isEnabled()).toBe(true);
        expect(await page.locator('#endpoint-reason').textContent()).toBe('');

        // The other mode: every panel empties (no live key yet); back in test mode the key comes back.
        await page.locator('label', { hasText: 'Live mode' }).click();
        await page.locator('#mode-banner.live').waitFor();
        await page.locator('#endpoint-detail').waitFor({ state: 'hidden' });
        await page.locator('#endpoints-body td.empty', { hasText: 'Create or paste a key first.' }).waitFor();
        await page.locator('#events-body td.empty', { hasText: 'Create or paste a key first.' }).waitFor();
        expect(await page.locator('#active-key').inputValue()).toBe('');
        await browser.screenshot('live-mode');
        await page.locator('label', { hasText: 'Test mode' }).click();
        await page.locator('#endpoints-body tr', { hasText: endpointId }).waitFor();
        expect(await page.locator('#active-key').inputValue()).toBe(key);

        // Deleted after a confirmation: gone from the list and from the API.
        await page.locator('#endpoints-body button[data-action=open]', { hasText: endpointId }).click();
        await page.locator('#endpoint-detail').waitFor();
        await page.getByRole('button', { name: 'Delete…' }).click();
        await page.getByRole('button', { name: 'Delete endpoint' }).click();
        await page
          .locator('#endpoints-body td.empty', { hasText: 'No endpoints in test mode yet.' })
          .waitFor();
        await page.locator('#endpoint-detail').waitFor({ state: 'hidden' });
        expect((await v1(key, `/webhook_endpoints/${endpointId}`)).status).toBe(404);

        // Revoked: the banner goes, the page no longer uses the key, and the API refuses it.
        // From the keyboard: the confirmation takes the focus of the button that asked for it.
        await page
          .locator('#keys-body')
          .getByRole('button', { name: /^Revoke / })
          .focus();
        await page.keyboard.press('Enter');
        await page.getByRole('button', { name: 'Revoke now' }).waitFor();
        expect(await page.evaluate('document.activeElement.textContent')).toBe('Revoke now');
        await page.keyboard.press('Enter');
        await page.locator('#keys-body .badge', { hasText: 'revoked' }).waitFor();
        await page.locator('#new-key').waitFor({ state: 'hidden' });
        await page.locator('#active-key-info', { hasText: 'No key for test mode' }).waitFor();
        expect((await v1(key, '/ping')).status).toBe(401);
        await browser.screenshot('revoked');
        expect(v1Posts.length).toBeGreaterThan(5);
        expect(v1Posts.every((sentKey) => /^[0-9a-f]{32}$/.test(sentKey ?? ''))).toBe(true);
        expect(new Set(v1Posts).size).toBe(v1Posts.length);
      },
      WALK_MS,
    );

    it('keeps long names and URLs inside the page at 1280 and 390 pixels wide', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${app.baseUrl}/developers`);
      await page.locator('#key-name').fill('K'.repeat(255));
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('#active-key-info', { hasText: 'scopes: ' }).waitFor();
      await page.locator('#endpoint-url').fill(`${app.baseUrl}/demo-receiver?${'x'.repeat(1900)}`);
      await page.locator('#endpoint-description').fill('D'.repeat(1000));
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.locator('#endpoint-secret').waitFor();
      await page.locator('#session-candidate').fill('C'.repeat(300));
      await page.getByRole('button', { name: 'Start session' }).click();
      // The first test's session and this one's.
      await page.locator('#events-body tr', { hasText: 'session.started' }).nth(1).waitFor();
      await page.locator('#events-body button[data-action=open]').first().click();
      await page.locator('#event-detail pre').waitFor();
      expect(await sidewaysScroll(page)).toBe(0);
      await browser.screenshot('long-values-1280');
      expect(await atWidth(390)).toBe(0);
      await browser.screenshot('long-values-390');
      expect(await lowContrastTexts(page)).toEqual([]);
    });

    it('pages the events by cursor with "Load more"', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      for (let started = 0; started < 12; started++) {
        expect((await dashboard('/sessions', { method: 'POST' })).status).toBe(201);
      }
      await page.locator('#events-type').selectOption('session.started');
      const more = page.locator('#events-more');
      await more.waitFor();
      expect(await page.locator('#events-body tr').count()).toBe(12);
      await more.click();
      await page.locator('#events-body tr').nth(12).waitFor();
      const shown = await page
        .locator('#events-body tr')
        .evaluateAll((rows) => rows.map((row) => row.dataset.key));
      expect(new Set(shown).size).toBe(shown.length);
      expect(await more.isHidden()).toBe(true);
    });

    it('pages the endpoints and an endpoint\'s deliveries by cursor with "Load more"', async () => {
      const manager = await newKey('test', ['developers:manage']);
      const added: string[] = [];
      for (let created = 0; created < 11; created++) {
        const endpoint = await v1<{ id: string }>(manager.key, '/webhook_endpoints', {
          method: 'POST',
          body: {
            url: `${app.baseUrl}/demo-receiver`,
            enabled_events: ['*'],
            description: `paged ${created}`,
          },
        });
        expect(endpoint.status).toBe(201);
        added.push(endpoint.body.id);
      }
      const endpointId = added[0];
      for (let sent = 0; sent < 11; sent++) {
        const test = await v1(manager.key, `/webhook_endpoints/${endpointId}/test`, {
          method: 'POST',
          body: {},
        });
        expect(test.status).toBe(201);
      }
      type List = { data: { id: string }[] };
      const ids = async (path: string): Promise<string[]> =>
        (await v1<List>(manager.key, `${path}?limit=100`)).body.data.map(({ id }) => id);
      const allEndpoints = await ids('/webhook_endpoints');
      expect(allEndpoints.length).toBeGreaterThan(10);
      await pasteKey(manager);

      // Endpoints: ten rows, then the rest after "Load more", in the API's order, and no button left.
      const endpointsMore = page.locator('#endpoints-more');
      await endpointsMore.waitFor();
      expect(await rowKeys('#endpoints-body')).toEqual(allEndpoints.slice(0, 10));
      await endpointsMore.click();
      await page
        .locator('#endpoints-body tr')
        .nth(allEndpoints.length - 1)
        .waitFor();
      expect(await rowKeys('#endpoints-body')).toEqual(allEndpoints);
      expect(await endpointsMore.isHidden()).toBe(true);

      // One endpoint's eleven deliveries: ten, then the eleventh.
      const deliveries = await ids(`/webhook_endpoints/${endpointId}/deliveries`);
      expect(deliveries).toHaveLength(11);
      await page.locator('#endpoints-body button[data-action=open]', { hasText: endpointId }).click();
      await page.locator('#endpoint-detail-id', { hasText: endpointId }).waitFor();
      const deliveriesMore = page.locator('#deliveries-more');
      await deliveriesMore.waitFor();
      expect(await rowKeys('#deliveries-body')).toEqual(deliveries.slice(0, 10));
      await deliveriesMore.click();
      await page.locator('#deliveries-body tr').nth(10).waitFor();
      expect(await rowKeys('#deliveries-body')).toEqual(deliveries);
      expect(await deliveriesMore.isHidden()).toBe(true);
      Object.assign(paged, { key: manager.key, keyId: manager.id, endpointId });
    });

    it("shows the edit form's errors next to their field and in the live region, and changes nothing", async () => {
      expect(paged.endpointId).toMatch(/^whk_/);
      const path = `/webhook_endpoints/${paged.endpointId}`;
      await page.locator('#endpoint-detail-id', { hasText: paged.endpointId }).waitFor();
      const before = (await v1(paged.key, path)).body;
      const save = page.getByRole('button', { name: 'Save changes' });
      const liveErrors = page.locator('#live-errors');

      // No event type: refused by the page itself.
      await page.locator('#edit-events input[name=all-events]').uncheck();
      await save.click();
      const eventsError = page.locator('#edit-events-error');
      await eventsError.filter({ hasText: /\S/ }).waitFor();
      const eventsMessage = (await eventsError.textContent()) ?? '';
      expect(eventsMessage).toMatch(/at least one event type/);
      expect(await page.locator('#edit-events').getAttribute('aria-invalid')).toBe('true');
      expect(await liveErrors.textContent()).toBe(eventsMessage);

      // A URL the API refuses: its message by the URL field, the events' error gone.
      await page.locator('#edit-events input[name=all-events]').check();
      await page.locator('#edit-url').fill('not a url');
      await page.locator('#edit-description').fill('Not saved');
      await save.click();
      const urlError = page.locator('#edit-url-error');
      await urlError.filter({ hasText: /\S/ }).waitFor();
      await idle('#endpoint-edit button[type=submit]');
      const urlMessage = (await urlError.textContent()) ?? '';
      expect(urlMessage).toMatch(/url/i);
      expect(await page.locator('#edit-url').getAttribute('aria-invalid')).toBe('true');
      expect(await liveErrors.textContent()).toBe(urlMessage);
      expect(await eventsError.textContent()).toBe('');
      expect(await page.locator('#edit-events').getAttribute('aria-invalid')).toBeNull();
      await browser.screenshot('edit-url-refused');

      expect((await v1(paged.key, path)).body).toEqual(before);
      expect(await page.locator('#endpoint-facts').textContent()).not.toContain('Not saved');
    });

    it('disables Send test event and Replay, saying why, once the endpoint is disabled', async () => {
      expect(paged.endpointId).toMatch(/^whk_/);
      await page.locator('#deliveries-body button[data-action=open]').first().click();
      const replay = page.locator('#delivery-replay');
      await replay.waitFor();
      expect(await replay.isEnabled()).toBe(true);
      // Disabled through the API: the page's refresh shows it and blocks both actions.
      const disabled = await v1<{ status: string }>(paged.key, `/webhook_endpoints/${paged.endpointId}`, {
        method: 'PATCH',
        body: { disabled: true },
      });
      expect(disabled.body.status).toBe('disabled');
      await page.locator('#endpoint-facts .badge', { hasText: 'disabled' }).waitFor();
      await page.locator('#endpoint-test:disabled').waitFor();
      const testReason = page.locator('#endpoint-reason');
      expect(await testReason.textContent()).toBe('Enable the endpoint to send a test event.');
      expect(await testReason.isVisible()).toBe(true);
      await page.locator('#delivery-replay:disabled').waitFor();
      const replayReason = page.locator('#delivery-detail .actions .reason');
      expect(await replayReason.textContent()).toBe('Enable the endpoint to replay its deliveries.');
      expect(await replayReason.isVisible()).toBe(true);
      await browser.screenshot('disabled-through-the-api');
    });

    it('empties every panel when the key or the mode changes', async () => {
      await page.locator('#events-body button[data-action=open]').first().click();
      await page.locator('#event-detail pre').waitFor();
      for (const panel of ['#endpoint-detail', '#delivery-detail', '#event-detail'])
        expect(await page.locator(panel).isVisible()).toBe(true);
      const shownBefore = [
        ...(await rowKeys('#endpoints-body')),
        ...(await rowKeys('#deliveries-body')),
        ...(await rowKeys('#events-body')),
      ];
      expect(shownBefore.length).toBeGreaterThan(20);
      const anyShownBefore = async (): Promise<string[]> => {
        const keys = await page
          .locator('tr[data-key]')
          .evaluateAll((rows) => rows.map((row) => row.dataset.key));
        return keys.filter((key): key is string => shownBefore.includes(key));
      };

      // A test key that may not read endpoints or events: both panels say why, with no row of before.
      const reader = await newKey('test', ['results:read']);
      type Refusal = { error: { message: string } };
      const endpointsRefused = await v1<Refusal>(reader.key, '/webhook_endpoints');
      const eventsRefused = await v1<Refusal>(reader.key, '/events');
      expect([endpointsRefused.status, eventsRefused.status]).toEqual([403, 403]);
      await pasteKey(reader);
      await page
        .locator('#endpoints-body td.empty', { hasText: endpointsRefused.body.error.message })
        .waitFor();
      await page.locator('#events-body td.empty', { hasText: eventsRefused.body.error.message }).waitFor();
      for (const panel of ['#endpoint-detail', '#delivery-detail', '#event-detail'])
        expect(await page.locator(panel).isHidden()).toBe(true);
      expect(await anyShownBefore()).toEqual([]);
      await browser.screenshot('key-without-developers-scope');

      // A live key with one live endpoint: the page turns to live mode and shows only that endpoint.
      const live = await newKey('live', ['developers:manage']);
      const liveEndpoint = await v1<{ id: string }>(live.key, '/webhook_endpoints', {
        method: 'POST',
        body: { url: `${app.baseUrl}/demo-receiver`, enabled_events: ['*'] },
      });
      expect(liveEndpoint.status).toBe(201);
      await pasteKey(live);
      await page.locator('#mode-banner.live').waitFor();
      await page.locator('#endpoints-body tr', { hasText: liveEndpoint.body.id }).waitFor();
      await page.locator('#events-body td.empty', { hasText: 'No events in live mode yet' }).waitFor();
      await page.locator('#sessions-body td.empty', { hasText: 'No live sessions yet.' }).waitFor();
      expect(await rowKeys('#endpoints-body')).toEqual([liveEndpoint.body.id]);
      expect(await anyShownBefore()).toEqual([]);

      // Back in test mode: the test key kept for it, and nothing of live mode.
      await page.locator('label', { hasText: 'Test mode' }).click();
      await page.locator('#active-key-info', { hasText: reader.id }).waitFor();
      await page
        .locator('#endpoints-body td.empty', { hasText: endpointsRefused.body.error.message })
        .waitFor();
      expect(await page.locator('tr[data-key]', { hasText: liveEndpoint.body.id }).count()).toBe(0);
    });

    it('keeps the rows "Load more" added when a refresh of the list overlaps it', async () => {
      expect(paged.keyId).toMatch(/^key_/);
      const listPath = (url: URL, cursor: boolean): boolean =>
        url.pathname === '/v1/webhook_endpoints' && url.searchParams.has('cursor') === cursor;
      const firstPage = (url: URL): boolean => listPath(url, false);
      const nextPage = (url: URL): boolean => listPath(url, true);
      /** Resolves when the page next asks for the list's first page: a refresh of the list. */
      const refreshAsked = (): Promise<unknown> =>
        page.waitForRequest((request) => firstPage(new URL(request.url())));
      type List = { data: { id: string }[] };
      const all = (await v1<List>(paged.key, '/webhook_endpoints?limit=100')).body.data.map(({ id }) => id);
      expect(all.length).toBeGreaterThan(10);
      const more = page.locator('#endpoints-more');
      const showsAll = async (): Promise<void> => {
        await page
          .locator('#endpoints-body tr')
          .nth(all.length - 1)
          .waitFor();
        expect(await rowKeys('#endpoints-body')).toEqual(all);
        expect(await more.isHidden()).toBe(true);
      };
      try {
        // The next page is answered only once the periodic refresh has asked for the list again.
        await pasteKey({ key: paged.key, id: paged.keyId });
        await more.waitFor();
        await page.route(nextPage, async (route) => {
          await refreshAsked();
          await route.continue();
        });
        await more.click();
        await showsAll();
        await page.unrouteAll();

        // A refresh held until "Load more" has shown its rows.
        await page.locator('label', { hasText: 'Live mode' }).click();
        await page.locator('label', { hasText: 'Test mode' }).click();
        await more.waitFor();
        expect(await rowKeys('#endpoints-body')).toEqual(all.slice(0, 10));
        let release = (): void => undefined;
        const released = new Promise<void>((resolve) => (release = resolve));
        const held = new Promise<void>((resolve) =>
          page.route(firstPage, async (route) => {
            resolve();
            await released;
            await route.continue();
          }),
        );
        await held;
        await more.click();
        await page
          .locator('#endpoints-body tr')
          .nth(all.length - 1)
          .waitFor();
        const nextRefresh = refreshAsked();
        release();
        // The page refreshes one round at a time: its next round starts after the held one was handled.
        await nextRefresh;
        await showsAll();
      } finally {
        await page.unrouteAll();
      }
    });
  },
);
