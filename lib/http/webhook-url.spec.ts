import { checkWebhookUrl, webhookUrlRefusal } from './webhook-url.js';

describe('checkWebhookUrl', () => {
  it.each([
    ['https://2130706433/', 'decimal 127.0.0.1'],
    ['https://0x7f000001/', 'hex 127.0.0.1'],
    ['https://0177.0.0.1/', 'octal 127.0.0.1'],
    ['https://127.1/', 'short 127.0.0.1'],
    ['https://127.0.0.1/', 'loopback'],
    ['https://[::1]/', 'IPv6 loopback'],
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['https://[64:ff9b::a9fe:a9fe]/', 'NAT64 metadata address'],
    ['https://[2002:7f00:1::]/', '6to4 loopback'],
    ['https://[fe80::1]/', 'IPv6 link-local'],
    ['https://[fc00::1]/', 'unique local'],
    ['https://169.254.169.254/', 'cloud metadata'],
    ['https://169.254.169.254./', 'cloud metadata, trailing dot'],
    ['https://10.0.0.5/', 'private'],
    ['https://100.64.0.1/', 'carrier-grade NAT'],
    ['https://198.18.0.1/', 'benchmarking'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://localhost/', 'localhost'],
    ['https://localhost./', 'localhost, trailing dot'],
    ['https://x.localhost/', 'a localhost subdomain'],
    ['https://printer.local/', 'mDNS'],
    ['https://metadata.google.internal/', 'a cloud-internal zone'],
    ['https://metadata.google.internal./', 'a cloud-internal zone, trailing dot'],
    ['http://example.com/hook', 'plain http'],
    ['ftp://example.com/hook', 'another scheme'],
    ['https://user:pw@example.com/hook', 'credentials'],
    ['https://user@example.com/hook', 'a username'],
    ['/hooks/interview', 'a relative url'],
    ['example.com/hook', 'no scheme'],
    ['', 'empty'],
  ])('refuses %s (%s)', (url) => {
    expect(checkWebhookUrl(url, false)).toEqual(expect.any(String));
  });

  it('explains each refusal', () => {
    expect(checkWebhookUrl('http://example.com/hook', false)).toBe('url must be an absolute https URL');
    expect(checkWebhookUrl('/hooks', false)).toBe('url must be an absolute https URL');
    expect(checkWebhookUrl('https://user:pw@example.com/', false)).toBe(
      'url must not contain a username or password',
    );
    expect(checkWebhookUrl('https://127.1/', false)).toBe(
      'url must not point to a private or reserved IP address',
    );
    expect(checkWebhookUrl('https://x.localhost/', false)).toBe(
      'url must not point to a local or internal host name',
    );
  });

  it.each(['https://example.com/hook', 'https://8.8.8.8/hook', 'https://[2606:4700::1111]:8443/hook'])(
    'accepts %s',
    (url) => {
      expect(checkWebhookUrl(url, false)).toBeNull();
    },
  );

  // WHATWG URL would strip these and parse a URL other than the one stored and shown.
  it.each([
    ['  https://example.com/a  ', 'surrounding spaces'],
    [' https://example.com/a', 'a leading space'],
    ['https://example.com/a\n', 'a trailing line break'],
    ['\thttps://example.com/a', 'a leading tab'],
    ['https://example.com/a\u00a0', 'a trailing no-break space'],
  ])('refuses %j (%s), in either mode', (url) => {
    for (const allowInsecure of [false, true]) {
      expect(checkWebhookUrl(url, allowInsecure)).toBe('url must not begin or end with whitespace');
    }
  });

  it.each([
    ['https://exa\nmple.com/', 'a line break in the host'],
    ['https://example.com/a\tb', 'a tab in the path'],
    ['https://example.com/a\rb', 'a carriage return'],
    ['https://example.com/\u0000', 'NUL'],
    ['https://example.com/\u001f', 'unit separator'],
    ['https://example.com/\u007f', 'DEL'],
  ])('refuses %j (%s), in either mode', (url) => {
    for (const allowInsecure of [false, true]) {
      expect(checkWebhookUrl(url, allowInsecure)).toBe(
        'url must not contain control characters such as tabs or line breaks',
      );
    }
  });

  // WHATWG URL repairs these into another URL than the one stored and shown.
  it.each([
    ['https:example.com/hook', 'no slashes'],
    ['https:/example.com/hook', 'one slash'],
    ['https:///example.com/hook', 'three slashes'],
  ])('refuses %j (%s), in either mode', (url) => {
    expect(checkWebhookUrl(url, false)).toBe('url must be an absolute https URL');
    expect(checkWebhookUrl(url, true)).toBe('url must be an absolute http or https URL');
  });

  // Sent somewhere else than shown: "https://example.com\@evil.com/" goes to example.com, while
  // a parser that keeps the backslash in the user info (Python's urlsplit) reads evil.com.
  it.each([
    ['https:\\\\example.com/hook', 'url must not contain a backslash'],
    ['https://example.com\\@evil.com/', 'url must not contain a backslash'],
    ['https://example.com/a\\b', 'url must not contain a backslash'],
    ['https://@example.com/hook', 'url must not contain a username or password'],
    ['https://:@example.com/hook', 'url must not contain a username or password'],
    ['https://example.com/p th', 'url must not contain spaces: percent-encode them as %20'],
  ])('refuses %j, which a parser would repair, in either mode', (url, message) => {
    expect(checkWebhookUrl(url, false)).toBe(message);
    expect(checkWebhookUrl(url, true)).toBe(message);
  });

  it('accepts an @ in the path or the query, which names no user', () => {
    expect(checkWebhookUrl('https://example.com/a@b?to=x@y.com#at@z', false)).toBeNull();
  });

  it('refuses port 0, which nothing listens on', () => {
    expect(checkWebhookUrl('https://example.com:0/hook', false)).toBe('url must not use port 0');
    expect(checkWebhookUrl('HTTPS://example.com:8443/hook', false)).toBeNull();
  });

  it('allows http and local receivers only when insecure URLs are allowed', () => {
    expect(checkWebhookUrl('http://127.0.0.1:3000/x', true)).toBeNull();
    expect(checkWebhookUrl('http://localhost:3000/x', true)).toBeNull();
    expect(checkWebhookUrl('http://127.0.0.1:3000/x', false)).toBe('url must be an absolute https URL');
  });

  it('keeps refusing credentials and other schemes when insecure URLs are allowed', () => {
    expect(checkWebhookUrl('http://user:pw@127.0.0.1:3000/x', true)).toBe(
      'url must not contain a username or password',
    );
    expect(checkWebhookUrl('ftp://127.0.0.1/x', true)).toBe('url must be an absolute http or https URL');
  });
});

describe('webhookUrlRefusal', () => {
  const HINT = ' For local development, set webhooks.allowInsecureUrls: true in the module options.';

  it.each([
    ['http://127.0.0.1:3000/hook', 'url must be an absolute https URL'],
    ['http://example.com/hook', 'url must be an absolute https URL'],
    ['https://10.0.0.5/hook', 'url must not point to a private or reserved IP address'],
    ['https://[fe80::1]/hook', 'url must not point to a private or reserved IP address'],
    ['https://localhost:8443/hook', 'url must not point to a local or internal host name'],
  ])('names the option for %s, refused by secure mode only, outside production', (url, message) => {
    expect(webhookUrlRefusal(url, false, false)).toBe(`${message}.${HINT}`);
    expect(webhookUrlRefusal(url, false, true)).toBe(message);
    expect(webhookUrlRefusal(url, true, false)).toBeNull();
  });

  it.each([
    'ftp://127.0.0.1/hook',
    'http://user:pw@127.0.0.1/hook',
    'http:127.0.0.1/hook',
    'https://example.com:0/hook',
    '/hooks',
  ])('does not name it for %s, which the option would refuse too', (url) => {
    expect(webhookUrlRefusal(url, false, false)).toBe(checkWebhookUrl(url, false));
  });

  it('accepts what checkWebhookUrl accepts', () => {
    expect(webhookUrlRefusal('https://hooks.example.com/a', false, false)).toBeNull();
  });
});
