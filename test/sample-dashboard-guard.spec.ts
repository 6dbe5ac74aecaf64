import { dashboardHosts, dashboardRefusal } from '../sample-app/developers/local-dashboard.guard.js';

describe("the sample app's Developers page guard", () => {
  const hosts = dashboardHosts({
    port: 3000,
    receiverUrl: 'http://127.0.0.1:3000/demo-receiver',
    extraDashboardHosts: [],
  });
  const page = (method: string, host: string | undefined, origin?: string): string | null =>
    dashboardRefusal({ method, host, origin }, hosts);

  it('answers its own page on this machine, under any of its loopback names', () => {
    expect(page('GET', '127.0.0.1:3000')).toBeNull();
    expect(page('GET', 'LOCALHOST:3000')).toBeNull();
    expect(page('POST', 'localhost:3000', 'http://localhost:3000')).toBeNull();
    expect(page('DELETE', '[::1]:3000', 'http://[::1]:3000')).toBeNull();
  });

  it('refuses a name rebound to this machine (DNS rebinding), reads included', () => {
    expect(page('GET', 'attacker.example:3000')).toMatch(/answers only at .*127\.0\.0\.1:3000/);
    expect(page('POST', 'attacker.example:3000', 'http://attacker.example:3000')).not.toBeNull();
    expect(page('GET', '127.0.0.1:3001')).not.toBeNull();
    expect(page('GET', undefined)).not.toBeNull();
  });

  it("refuses a write from another page's origin, and takes one without an Origin (curl)", () => {
    expect(page('POST', '127.0.0.1:3000', 'https://attacker.example')).toMatch(/its own page only/);
    expect(page('POST', '127.0.0.1:3000', 'http://localhost:3000')).not.toBeNull();
    expect(page('POST', '127.0.0.1:3000', 'null')).not.toBeNull();
    expect(page('POST', '127.0.0.1:3000')).toBeNull();
    // A read changes nothing, and a cross-origin page cannot read the answer without CORS.
    expect(page('GET', '127.0.0.1:3000', 'https://attacker.example')).toBeNull();
  });

  it('on port 80, goes by the names a browser sends without a port', () => {
    const plain = dashboardHosts({
      port: 80,
      receiverUrl: 'http://127.0.0.1/demo-receiver',
      extraDashboardHosts: [],
    });
    expect(dashboardRefusal({ method: 'GET', host: 'localhost', origin: undefined }, plain)).toBeNull();
    expect(
      dashboardRefusal({ method: 'POST', host: 'localhost', origin: 'http://localhost' }, plain),
    ).toBeNull();
  });

  it('goes by the address the demo is started on, and by those DEMO_ALLOWED_HOSTS adds', () => {
    const lan = dashboardHosts({
      port: 8080,
      receiverUrl: 'http://192.168.1.20:8080/demo-receiver',
      extraDashboardHosts: ['localhost:18080'],
    });
    const read = (host: string): string | null =>
      dashboardRefusal({ method: 'GET', host, origin: undefined }, lan);
    expect(read('192.168.1.20:8080')).toBeNull();
    expect(read('localhost:18080')).toBeNull();
    expect(read('127.0.0.1:3000')).not.toBeNull();
  });
});
