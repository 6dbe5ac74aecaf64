import { OpenHosts, type TestHost, type TestHostOptions } from './host-app.js';
import { OpenReceivers } from './receiver.js';

/** The hosts and receivers of a test file's tests, closed after each test (hosts first). */
export function closedAfterEachTest(): {
  hosts: OpenHosts;
  receivers: OpenReceivers;
  boot: (options: TestHostOptions) => Promise<TestHost>;
} {
  const hosts = new OpenHosts();
  const receivers = new OpenReceivers();
  afterEach(async () => {
    await hosts.closeAll();
    await receivers.closeAll();
  });
  return { hosts, receivers, boot: (options) => hosts.start(options) };
}
