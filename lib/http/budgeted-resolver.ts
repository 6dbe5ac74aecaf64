import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { Resolver } from 'node:dns/promises';

import type { ResolveAll } from './guarded-lookup.js';
import { DNS_TRIES, MAX_DNS_BUDGET_MS } from '../interview-api.tuning.js';

export interface BudgetedResolverOptions {
  /** The whole resolution, both families and every retry; past it the queries are cancelled. */
  budgetMs: number;
  /** Name servers as `resolver.setServers` takes them; the system's when absent. Tests only. */
  servers?: string[];
}

/**
 * The budget of an attempt's resolution: at most half its deadline, so that a name server that
 * never answers is recorded as dns_error rather than timeout, and a slow answer still leaves time
 * to connect.
 */
export function dnsBudgetMs(timeoutMs: number): number {
  return Math.min(MAX_DNS_BUDGET_MS, Math.ceil(timeoutMs / 2));
}

/** c-ares' own code for a query that went unanswered, so a spent budget reads as any DNS failure. */
const DNS_TIMEOUT_CODE = 'ETIMEOUT';

type Family = 4 | 6;

const LOOPBACK: LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * Resolves with c-ares, not `dns.lookup`: getaddrinfo holds a thread of libuv's small shared pool for
 * about 30 s per silent name server and cannot be cancelled, so a few such endpoints would delay every
 * other look-up. Each resolution has its own channel: spending its budget cancels only its queries.
 */
export function createBudgetedResolver(options: BudgetedResolverOptions): ResolveAll {
  return (hostname, lookupOptions, callback) => {
    resolveWithinBudget(hostname, familiesOf(lookupOptions), options).then(
      (addresses) => callback(null, addresses),
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

async function resolveWithinBudget(
  hostname: string,
  families: readonly Family[],
  options: BudgetedResolverOptions,
): Promise<LookupAddress[]> {
  // c-ares never reads /etc/hosts. RFC 6761 reserves these names for loopback, so they are answered
  // here rather than sent to a name server that might say otherwise.
  if (isLocalhostName(hostname))
    return LOOPBACK.filter((entry) => families.some((family) => family === entry.family));

  const resolver = new Resolver({
    timeout: Math.max(1, Math.floor(options.budgetMs / DNS_TRIES)),
    tries: DNS_TRIES,
  });
  if (options.servers) resolver.setServers(options.servers);
  let budgetSpent = false;
  const timer = setTimeout(() => {
    budgetSpent = true;
    resolver.cancel();
  }, options.budgetMs);
  const answers = await Promise.allSettled(families.map((family) => query(resolver, hostname, family)));
  clearTimeout(timer);

  // One family answering is enough: the connection only ever uses the addresses returned here.
  const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
  const failure = answers.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected');
  if (addresses.length > 0 || failure === undefined) return addresses;
  if (budgetSpent) {
    throw Object.assign(new Error(`DNS resolution of ${hostname} exceeded ${options.budgetMs} ms`), {
      code: DNS_TIMEOUT_CODE,
      hostname,
    });
  }
  throw failure.reason;
}

async function query(resolver: Resolver, hostname: string, family: Family): Promise<LookupAddress[]> {
  const addresses = family === 4 ? await resolver.resolve4(hostname) : await resolver.resolve6(hostname);
  return addresses.map((address) => ({ address, family }));
}

function familiesOf(options: LookupAllOptions): readonly Family[] {
  if (options.family === 4 || options.family === 'IPv4') return [4];
  if (options.family === 6 || options.family === 'IPv6') return [6];
  return [4, 6];
}

function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
