import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { EventPublisher } from '../lib/index.js';
import { createTestHost, type TestHost } from './support/host-app.js';
import { eventually, Receiver } from './support/receiver.js';

describe('publish → deliver (smoke)', () => {
  let host: TestHost;
  let receiver: Receiver;
  let key: string;

  beforeAll(async () => {
    host = await createTestHost();
    receiver = await Receiver.start();
    key = await host.createKey('acct_a', 'test');
  });
  afterAll(async () => {
    await host.close();
    await receiver.close();
  });

  it('delivers a published event, signed, and records it succeeded', async () => {
    const created = await request(host.app.getHttpServer())
      .post('/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${key}`)
      .send({ url: receiver.url, enabled_events: ['result.ready'] })
      .expect(201);
    const event = await host.app.get(EventPublisher).publish({
      accountId: 'acct_a',
      type: 'result.ready',
      livemode: false,
      data: { id: 'res_1', object: 'result', status: 'ready' },
    });
    const [received] = await receiver.waitFor(1);
    expect(JSON.parse(received.body)).toEqual(event);
    new Webhook(created.body.secret).verify(received.body, received.headers as Record<string, string>);
    const delivery = await eventually(async () => {
      const res = await request(host.app.getHttpServer())
        .get(`/v1/webhook_endpoints/${created.body.id}/deliveries`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      return res.body.data[0]?.status === 'succeeded' ? res.body.data[0] : undefined;
    });
    expect(delivery).toMatchObject({ event_id: event.id, attempt: 1, response_status: 200, error: null });
  });
});
