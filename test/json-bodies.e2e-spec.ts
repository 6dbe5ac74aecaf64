import { Body, Post } from '@nestjs/common';
import { IsString } from 'class-validator';
import request, { type Test } from 'supertest';
import { DataSource } from 'typeorm';
import { ApiV1Controller, WebhookEndpointEntity } from '../lib/index.js';
import { errorEnvelope } from './support/api-error.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { TEST_WEBHOOKS } from './support/webhooks.js';

class PlaceOrder {
  @IsString()
  item!: string;
}

/** A host's own POST with a DTO, which Express's form parser would fill as well as its JSON one. */
@ApiV1Controller('host_orders')
class HostOrdersController {
  static placed = 0;

  @Post()
  place(@Body() order: PlaceOrder): { object: string; item: string } {
    HostOrdersController.placed += 1;
    return { object: 'order', item: order.item };
  }
}

const ENDPOINTS = '/v1/webhook_endpoints';
const URL = 'http://127.0.0.1:9/hook';

const UNSUPPORTED = {
  status: 415,
  body: errorEnvelope('invalid_request_error', 'unsupported_media_type'),
};

/** docs/api-contract.md, Conventions: bodies are JSON, sent as application/json. */
describe('a body sent as anything but application/json', () => {
  let host: TestHost;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost({ module: { webhooks: TEST_WEBHOOKS }, controllers: [HostOrdersController] });
    key = await host.createKey('acct_media', 'test');
  });
  afterAll(() => host.close());

  const call = (method: 'post' | 'patch', path: string, apiKey = key): Test =>
    request(host.app.getHttpServer())[method](path).set('Authorization', `Bearer ${apiKey}`);
  const endpoints = (): Promise<WebhookEndpointEntity[]> =>
    host.app
      .get(DataSource)
      .getRepository(WebhookEndpointEntity)
      .find({ where: { accountId: 'acct_media' } });
  const answer = (res: request.Response): { status: number; body: unknown } => ({
    status: res.status,
    body: res.body,
  });

  it.each([
    ['a form', 'application/x-www-form-urlencoded', `url=${encodeURIComponent(URL)}&enabled_events[]=*`],
    ['JSON as text/plain', 'text/plain;charset=UTF-8', JSON.stringify({ url: URL, enabled_events: ['*'] })],
    ['JSON as a +json type', 'application/vnd.api+json', JSON.stringify({ url: URL, enabled_events: ['*'] })],
  ])('refuses %s with 415 and creates no endpoint', async (_name, contentType, body) => {
    const res = await call('post', ENDPOINTS).set('Content-Type', contentType).send(body);
    expect(answer(res)).toEqual(UNSUPPORTED);
    expect(res.body.error.message).toContain('application/json');
    expect(await endpoints()).toEqual([]);
  });

  it('refuses a form PATCH with 415 and changes nothing', async () => {
    const created = await call('post', ENDPOINTS).send({ url: URL, enabled_events: ['*'] });
    expect(created.status).toBe(201);
    const res = await call('patch', `${ENDPOINTS}/${created.body.id as string}`)
      .type('form')
      .send('disabled=true&description=changed');
    expect(answer(res)).toEqual(UNSUPPORTED);
    expect(await endpoints()).toEqual([expect.objectContaining({ status: 'enabled', description: null })]);
    await host.app.get(DataSource).getRepository(WebhookEndpointEntity).delete({ accountId: 'acct_media' });
  });

  it("refuses a form sent to a host's own @ApiV1Controller POST, before its handler", async () => {
    const res = await call('post', '/v1/host_orders').type('form').send('item=book');
    expect(answer(res)).toEqual(UNSUPPORTED);
    expect(HostOrdersController.placed).toBe(0);
    const json = await call('post', '/v1/host_orders').send({ item: 'book' });
    expect(answer(json)).toEqual({ status: 201, body: { object: 'order', item: 'book' } });
  });

  it.each(['application/json; charset=utf-8', 'Application/JSON'])(
    'accepts JSON as %s',
    async (contentType) => {
      const res = await call('post', ENDPOINTS)
        .set('Content-Type', contentType)
        .send(JSON.stringify({ url: URL, enabled_events: ['*'] }));
      expect(res.status).toBe(201);
      await host.app.get(DataSource).getRepository(WebhookEndpointEntity).delete({ id: res.body.id });
    },
  );

  it('leaves a bodiless POST alone, whatever its Content-Type', async () => {
    const created = await call('post', ENDPOINTS).send({ url: URL, enabled_events: ['*'] });
    const rotate = `${ENDPOINTS}/${created.body.id as string}/rotate_secret`;
    const bare = await call('post', rotate);
    expect(bare.status).toBe(200);
    const typed = await call('post', rotate)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('');
    expect(typed.status).toBe(200);
    expect(typed.body.secret).not.toBe(bare.body.secret);
  });

  it('answers a request without a valid key 401 first, and creates nothing', async () => {
    const before = (await endpoints()).length;
    const keyless = await request(host.app.getHttpServer())
      .post(ENDPOINTS)
      .type('form')
      .send(`url=${encodeURIComponent(URL)}&enabled_events[]=*`);
    const unknown = await call('post', ENDPOINTS, 'iv_test_unknown')
      .type('form')
      .send(`url=${encodeURIComponent(URL)}&enabled_events[]=*`);
    for (const res of [keyless, unknown]) {
      expect(answer(res)).toEqual({
        status: 401,
        body: errorEnvelope('authentication_error', 'invalid_api_key'),
      });
    }
    expect(await endpoints()).toHaveLength(before);
  });
});
