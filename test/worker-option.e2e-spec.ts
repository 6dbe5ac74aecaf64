import { DataSource } from 'typeorm';
import { DeliveryProcessor } from '../lib/delivery-engine/delivery-processor.js';
import { DeliveryEntity } from '../lib/index.js';
import { apiClient } from './support/api-client.js';
import { OpenHosts } from './support/host-app.js';
import { createEndpoint, publishResults } from './support/webhooks.js';

const ACCOUNT = 'acct_worker_option';

describe('the worker option', () => {
  const hosts = new OpenHosts();
  afterEach(() => hosts.closeAll());

  it('builds no sending runtime in a process with worker: false, which still publishes', async () => {
    const host = await hosts.start({ module: { worker: false } });
    expect(host.app.get(DeliveryProcessor)).toBeNull();
    const client = await apiClient(host, await host.createKey(ACCOUNT, 'test'));
    await createEndpoint(client, 'http://127.0.0.1:9/hook');
    await publishResults(host, ACCOUNT, 2);
    const deliveries = await host.app.get(DataSource).getRepository(DeliveryEntity).find();
    expect(deliveries.map((delivery) => delivery.status)).toEqual(['pending', 'pending']);
  });

  it('builds the sending runtime in a process that runs the worker', async () => {
    const host = await hosts.start({});
    expect(host.app.get(DeliveryProcessor)).toBeInstanceOf(DeliveryProcessor);
  });
});
