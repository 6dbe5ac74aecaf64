import type { LookupAddress, LookupAllOptions, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';

import { attemptErrorCode } from './attempt-error.js';
import { createBudgetedResolver } from './budgeted-resolver.js';
import { createGuardedLookup, type ResolveAll } from './guarded-lookup.js';

interface Answer {
  error: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family: number | undefined;
}

function ask(
  lookup: LookupFunction,
  options: LookupOptions,
  hostname = 'hooks.example.com',
): Promise<Answer> {
  return new Promise((resolve) =>
    lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );
}

const answering =
  (...answers: LookupAddress[][]): ResolveAll =>
  (_hostname, _options, callback) =>
    callback(null, answers.length > 1 ? (answers.shift() as LookupAddress[]) : answers[0]);

const PUBLIC: LookupAddress[] = [
  { address: '93.184.215.14', family: 4 },
  { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
];

describe('createGuardedLookup', () => {
  it('answers the { all: true } form Node 20 uses with every vetted address', async () => {
    const answer = await ask(createGuardedLookup(answering(PUBLIC)), { all: true, hints: 32 });
    expect(answer).toEqual({ error: null, address: PUBLIC, family: undefined });
  });

  it('answers the single-address form with the first vetted address', async () => {
    const answer = await ask(createGuardedLookup(answering(PUBLIC)), { family: 0 });
    expect(answer).toEqual({ error: null, address: '93.184.215.14', family: 4 });
  });

  it('always resolves every address, passing family and hints through', async () => {
    const seen: LookupAllOptions[] = [];
    const recording: ResolveAll = (_hostname, options, callback) => {
      seen.push(options);
      callback(null, PUBLIC);
    };
    await ask(createGuardedLookup(recording), { family: 6, hints: 1024 });
    expect(seen).toEqual([{ all: true, family: 6, hints: 1024 }]);
  });

  it.each([
    ['one private address among public ones', [...PUBLIC, { address: '10.0.0.1', family: 4 }]],
    ['an IPv4-mapped metadata address', [{ address: '::ffff:169.254.169.254', family: 6 }]],
    ['IPv6 loopback', [{ address: '::1', family: 6 }]],
  ])('refuses a name resolving to %s, in both callback forms', async (_label, addresses) => {
    for (const options of [{ all: true }, {}]) {
      const answer = await ask(createGuardedLookup(answering(addresses)), options);
      expect(answer.error).toMatchObject({ code: 'ERR_BLOCKED_DESTINATION' });
      expect(attemptErrorCode(answer.error)).toBe('blocked_destination');
    }
  });

  it('checks every resolution, so a rebinding answer is refused when it is used', async () => {
    const lookup = createGuardedLookup(answering(PUBLIC, [{ address: '127.0.0.1', family: 4 }]));
    expect((await ask(lookup, { all: true })).error).toBeNull();
    expect((await ask(lookup, { all: true })).error).toMatchObject({ code: 'ERR_BLOCKED_DESTINATION' });
  });

  it('passes resolver failures through, and treats an empty answer as not found', async () => {
    const failing: ResolveAll = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' }), []);
    const failed = await ask(createGuardedLookup(failing), { all: true });
    expect(attemptErrorCode(failed.error)).toBe('dns_error');

    const empty = await ask(createGuardedLookup(answering([])), { all: true });
    expect(empty.error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('refuses localhost over the budgeted resolver, which answers it as loopback', async () => {
    const lookup = createGuardedLookup(createBudgetedResolver({ budgetMs: 1_000 }));
    for (const hostname of ['localhost', 'api.localhost.']) {
      expect((await ask(lookup, { all: true }, hostname)).error).toMatchObject({
        code: 'ERR_BLOCKED_DESTINATION',
      });
    }
  });
});
