import { createSocket, type Socket } from 'node:dgram';
import { promises as dns, type LookupAddress } from 'node:dns';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import ipaddr from 'ipaddr.js';

import { attemptErrorCode } from './attempt-error.js';
import { createBudgetedResolver, dnsBudgetMs } from './budgeted-resolver.js';
import type { ResolveAll } from './guarded-lookup.js';

const TYPE_A = 1;
const TYPE_AAAA = 28;

interface Question {
  name: string;
  type: number;
}

interface NameServer {
  /** As `resolver.setServers` takes it. */
  server: string;
  questions: Question[];
}

interface Resolution {
  error: NodeJS.ErrnoException | null;
  addresses: LookupAddress[];
}

const sockets: Socket[] = [];

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close();
});

async function bind(): Promise<Socket> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return socket;
}

/**
 * A UDP name server on loopback. `answers` gives the addresses for a name and record type; null
 * leaves the query unanswered, as a domain's broken name server does.
 */
async function startNameServer(answers: (question: Question) => string[] | null): Promise<NameServer> {
  const socket = await bind();
  const questions: Question[] = [];
  socket.on('message', (query, sender) => {
    const { question, end } = readQuestion(query);
    questions.push(question);
    const addresses = answers(question);
    if (addresses !== null)
      socket.send(reply(query, end, question.type, addresses), sender.port, sender.address);
  });
  return { server: `127.0.0.1:${(socket.address() as AddressInfo).port}`, questions };
}

function readQuestion(query: Buffer): { question: Question; end: number } {
  const labels: string[] = [];
  let offset = 12;
  while (query[offset] !== 0) {
    labels.push(query.toString('latin1', offset + 1, offset + 1 + query[offset]));
    offset += 1 + query[offset];
  }
  return { question: { name: labels.join('.'), type: query.readUInt16BE(offset + 1) }, end: offset + 5 };
}

/** The query's id and question, then one answer per address (none is a NOERROR without data). */
function reply(query: Buffer, questionEnd: number, type: number, addresses: string[]): Buffer {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const data = Buffer.from(ipaddr.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name, as a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

function resolveWith(resolveAll: ResolveAll, hostname: string, family = 0): Promise<Resolution> {
  return new Promise((resolve) =>
    resolveAll(hostname, { all: true, family }, (error, addresses) => resolve({ error, addresses })),
  );
}

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

describe('dnsBudgetMs', () => {
  it('gives resolution half the attempt, at most 3 s', () => {
    expect(dnsBudgetMs(500)).toBe(250);
    expect(dnsBudgetMs(5_001)).toBe(2_501);
    expect(dnsBudgetMs(10_000)).toBe(3_000);
  });
});

describe('createBudgetedResolver', () => {
  it('asks the name server for both families at once and returns every address', async () => {
    const nameServer = await startNameServer(({ type }) => (type === TYPE_A ? [PUBLIC_V4] : [PUBLIC_V6]));
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });

    expect(await resolveWith(resolveAll, 'hooks.example.com')).toEqual<Resolution>({
      error: null,
      addresses: [
        { address: PUBLIC_V4, family: 4 },
        { address: PUBLIC_V6, family: 6 },
      ],
    });
    expect(nameServer.questions).toEqual(
      expect.arrayContaining([
        { name: 'hooks.example.com', type: TYPE_A },
        { name: 'hooks.example.com', type: TYPE_AAAA },
      ]),
    );
  });

  it('asks only for the family requested', async () => {
    const nameServer = await startNameServer(({ type }) => (type === TYPE_A ? [PUBLIC_V4] : [PUBLIC_V6]));
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });

    expect((await resolveWith(resolveAll, 'v4.example.com', 4)).addresses).toEqual([
      { address: PUBLIC_V4, family: 4 },
    ]);
    expect((await resolveWith(resolveAll, 'v6.example.com', 6)).addresses).toEqual([
      { address: PUBLIC_V6, family: 6 },
    ]);
    expect(nameServer.questions).toEqual([
      { name: 'v4.example.com', type: TYPE_A },
      { name: 'v6.example.com', type: TYPE_AAAA },
    ]);
  });

  it('returns every address of the answer, private ones included, for the guard to judge', async () => {
    const nameServer = await startNameServer(({ type }) => (type === TYPE_A ? [PUBLIC_V4, '10.0.0.1'] : []));
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });

    expect(await resolveWith(resolveAll, 'rebind.example.com')).toEqual<Resolution>({
      error: null,
      addresses: [
        { address: PUBLIC_V4, family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    });
  });

  it('fails a name without addresses with a DNS error', async () => {
    const nameServer = await startNameServer(() => []);
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });

    const { error } = await resolveWith(resolveAll, 'empty.example.com');
    expect(error).toMatchObject({ code: 'ENODATA' });
    expect(attemptErrorCode(error)).toBe('dns_error');
  });

  it('fails with a DNS error within its budget when the name server never answers', async () => {
    const nameServer = await startNameServer(() => null);
    const resolveAll = createBudgetedResolver({ budgetMs: 500, servers: [nameServer.server] });

    const startedAt = performance.now();
    const { error } = await resolveWith(resolveAll, 'silent.example.com');
    expect(performance.now() - startedAt).toBeLessThan(1_500);
    expect(error).toMatchObject({ code: 'ETIMEOUT' });
    expect(attemptErrorCode(error)).toBe('dns_error');
    expect(nameServer.questions.length).toBeGreaterThan(0);
  });

  it('leaves the thread pool free: system lookups answer while resolutions wait on a silent server', async () => {
    const nameServer = await startNameServer(() => null);
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });
    const waiting = Array.from({ length: 8 }, (_, index) =>
      resolveWith(resolveAll, `silent-${index}.example.com`),
    );

    // getaddrinfo runs at most a couple at a time on libuv's pool: had the eight above taken those
    // threads, this would queue behind them until they gave up.
    const startedAt = performance.now();
    await dns.lookup('localhost');
    expect(performance.now() - startedAt).toBeLessThan(1_000);

    for (const { error } of await Promise.all(waiting)) expect(attemptErrorCode(error)).toBe('dns_error');
  });

  it('reports a name server that refuses the query (ECONNREFUSED from a query) as dns_error', async () => {
    const closed = await bind();
    const server = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
    closed.close();
    sockets.splice(sockets.indexOf(closed), 1);
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [server] });

    const { error } = await resolveWith(resolveAll, 'refused.example.com');
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(attemptErrorCode(error)).toBe('dns_error');
  });

  it.each(['localhost', 'LocalHost.', 'api.localhost', 'a.b.localhost.'])(
    'answers %s as loopback without asking a name server (RFC 6761)',
    async (hostname) => {
      const nameServer = await startNameServer(() => [PUBLIC_V4]);
      const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });

      expect((await resolveWith(resolveAll, hostname)).addresses).toEqual([
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ]);
      expect((await resolveWith(resolveAll, hostname, 6)).addresses).toEqual([{ address: '::1', family: 6 }]);
      expect(nameServer.questions).toEqual([]);
    },
  );

  it('does not treat a name that merely contains localhost as loopback', async () => {
    const nameServer = await startNameServer(({ type }) => (type === TYPE_A ? [PUBLIC_V4] : []));
    const resolveAll = createBudgetedResolver({ budgetMs: 2_000, servers: [nameServer.server] });

    expect((await resolveWith(resolveAll, 'localhost.example.com')).addresses).toEqual([
      { address: PUBLIC_V4, family: 4 },
    ]);
  });
});
