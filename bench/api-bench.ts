import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ApiHost, HostCounters } from './api-host-process.js';
import { PG, REDIS } from './bench-host.js';
import { ask } from './child-process.js';
import type { HttpLoad, HttpLoadRun } from './http-load.js';
import { CpuMeter } from './process-cpu.js';
import { median } from './stats.js';

/**
 * The settings of the API part: events in the account, seconds each route is loaded per run (in
 * slices of `sliceSeconds`), connections, runs.
 */
export interface ApiBenchSettings {
  events: number;
  seconds: number;
  sliceSeconds: number;
  connections: number;
  runs: number;
}

interface Route {
  name: string;
  path: (host: ApiHost) => string;
  /** Whether the request carries the key (the bare route does not). */
  keyed: boolean;
}

/** What a route's loads in one run took: requests, seconds, and what each process spent, in µs. */
interface RouteTotals {
  requests: number;
  seconds: number;
  statements: number;
  redisCommands: number;
  hostCpu: number | null;
  postgresCpu: number | null;
  redisCpu: number | null;
  clientCpu: number | null;
}

/** A route's run, per request. */
interface RouteRun {
  perSecond: number;
  sqlPerRequest: number;
  redisPerRequest: number;
  /** CPU per request in µs, by process; null where it could not be read. */
  hostCpu: number | null;
  postgresCpu: number | null;
  redisCpu: number | null;
  clientCpu: number | null;
}

const BARE = 'bare route (`GET /bench/bare`, no guard)';
const HAND_WRITTEN = 'hand-written feed, page 1';

function routes(settings: ApiBenchSettings): Route[] {
  const deep = Math.round(settings.events * 0.9).toLocaleString('en-US');
  return [
    { name: BARE, path: () => '/bench/bare', keyed: false },
    { name: HAND_WRITTEN, path: () => '/bench/events', keyed: true },
    {
      name: `hand-written feed at offset ${deep}`,
      path: (host) => `/bench/events?offset=${host.deepOffset}`,
      keyed: true,
    },
    { name: '`GET /v1/ping`', path: () => '/v1/ping', keyed: true },
    { name: '`GET /v1/events?limit=25`, page 1', path: () => '/v1/events?limit=25', keyed: true },
    {
      name: `\`GET /v1/events?limit=25\` at depth ${deep} (cursor)`,
      path: (host) => `/v1/events?limit=25&cursor=${host.deepCursor}`,
      keyed: true,
    },
    {
      name: '`GET /v1/webhook_endpoints/{id}/deliveries`, page 1',
      path: (host) => `/v1/webhook_endpoints/${host.endpointId}/deliveries`,
      keyed: true,
    },
  ];
}

async function backendPids(client: pg.Client, applicationName: string): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [applicationName],
  );
  return rows.map((row) => row.pid);
}

const sum = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);

function addTo(totals: RouteTotals, more: RouteTotals): RouteTotals {
  return {
    requests: totals.requests + more.requests,
    seconds: totals.seconds + more.seconds,
    statements: totals.statements + more.statements,
    redisCommands: totals.redisCommands + more.redisCommands,
    hostCpu: sum(totals.hostCpu, more.hostCpu),
    postgresCpu: sum(totals.postgresCpu, more.postgresCpu),
    redisCpu: sum(totals.redisCpu, more.redisCpu),
    clientCpu: sum(totals.clientCpu, more.clientCpu),
  };
}

const NOTHING: RouteTotals = {
  requests: 0,
  seconds: 0,
  statements: 0,
  redisCommands: 0,
  hostCpu: 0,
  postgresCpu: 0,
  redisCpu: 0,
  clientCpu: 0,
};

function perRequest(totals: RouteTotals): RouteRun {
  const each = (micros: number | null): number | null => (micros === null ? null : micros / totals.requests);
  return {
    perSecond: totals.requests / totals.seconds,
    sqlPerRequest: totals.statements / totals.requests,
    redisPerRequest: totals.redisCommands / totals.requests,
    hostCpu: each(totals.hostCpu),
    postgresCpu: each(totals.postgresCpu),
    redisCpu: each(totals.redisCpu),
    clientCpu: each(totals.clientCpu),
  };
}

/** The processes a load involves, besides the host. */
interface Probes {
  poll: pg.Client;
  schema: string;
  redisPids: number[];
  loader: ChildProcess;
}

async function loadRoute(
  route: Route,
  api: ApiHost,
  host: ChildProcess,
  seconds: number,
  connections: number,
  probes: Probes,
): Promise<RouteTotals> {
  await ask(host, { type: 'reset' }, 'reset');
  const hostPids = host.pid === undefined ? [] : [host.pid];
  const cpu = new CpuMeter();
  cpu.start([...hostPids, ...probes.redisPids, ...(await backendPids(probes.poll, probes.schema))]);
  const load: HttpLoad = {
    url: `${api.baseUrl}${route.path(api)}`,
    authorization: route.keyed ? api.authorization : '',
    seconds,
    connections,
  };
  const run = await ask<HttpLoadRun>(probes.loader, load, 'run');
  const postgresCpu = cpu.used(await backendPids(probes.poll, probes.schema));
  const hostCpu = cpu.used(hostPids);
  const redisCpu = cpu.used(probes.redisPids);
  const counters = await ask<HostCounters>(host, { type: 'counters' }, 'counters');
  return {
    requests: run.requests,
    seconds: run.seconds,
    statements: counters.statements,
    redisCommands: counters.redisCommands,
    hostCpu,
    postgresCpu,
    redisCpu,
    clientCpu: run.clientCpu,
  };
}

const fmt = (value: number, digits: number): string => value.toFixed(digits);

function measured(values: readonly (number | null)[], digits: number): string {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? '–' : fmt(median(known), digits);
}

function ratioCell(ratios: number[]): string {
  return `${fmt(median(ratios), 2)} (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`;
}

/**
 * The API hot path: a host serving the module's routes, a bare route and a hand-written feed beside
 * them, loaded one route at a time from a process of its own, the routes interleaved run by run.
 * Answers the results as Markdown.
 */
export async function apiBench(settings: ApiBenchSettings): Promise<string> {
  const schema = `bench_api_${randomBytes(5).toString('hex')}`;
  const poll = new pg.Client(PG);
  await poll.connect();
  await poll.query(`CREATE SCHEMA ${schema}`);
  const redis = new Redis(REDIS);
  const serverPid = /process_id:(\d+)/.exec(await redis.info('server'));
  const loader = fork(new URL('./http-load-process.js', import.meta.url));
  await ask(loader, {}, 'ready');
  const probes: Probes = { poll, schema, redisPids: serverPid ? [Number(serverPid[1])] : [], loader };
  // BENCH_PROFILE=<dir>: the host writes a V8 CPU profile of the whole run there when it stops.
  const profile = process.env.BENCH_PROFILE;
  const host = fork(new URL('./api-host-process.js', import.meta.url), [schema, String(settings.events)], {
    execArgv: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  });
  const api = await ask<ApiHost>(host, {}, 'ready');
  const list = routes(settings);
  const results = new Map<Route, RouteRun[]>(list.map((route) => [route, []]));
  const load = (route: Route, seconds: number): Promise<RouteTotals> =>
    loadRoute(route, api, host, seconds, settings.connections, probes);
  try {
    // One short load of each route first, so that no route's first run pays for the JIT alone.
    for (const route of list) await load(route, Math.min(2, settings.seconds));
    // Each run loads the routes in turn, a slice at a time: whatever else the machine does in a
    // run falls on every route alike.
    const slices = Math.max(1, Math.round(settings.seconds / settings.sliceSeconds));
    for (let run = 0; run < settings.runs; run++) {
      const totals = new Map<Route, RouteTotals>(list.map((route) => [route, NOTHING]));
      for (let slice = 0; slice < slices; slice++) {
        for (const route of list) {
          totals.set(
            route,
            addTo(totals.get(route) ?? NOTHING, await load(route, settings.seconds / slices)),
          );
        }
      }
      const line: string[] = [];
      for (const route of list) {
        const result = perRequest(totals.get(route) ?? NOTHING);
        results.get(route)?.push(result);
        line.push(`${route.path(api).slice(0, 40)} ${fmt(result.perSecond, 0)}/s`);
      }
      console.log(`api run ${run + 1}: ${line.join(', ')}`);
    }
  } finally {
    await ask(host, { type: 'stop' }, 'stopped');
    loader.kill();
    const leftovers = await redis.keys(`${schema}:*`);
    if (leftovers.length > 0) await redis.del(...leftovers);
    redis.disconnect();
    await poll.query(`DROP SCHEMA ${schema} CASCADE`);
    await poll.end();
  }

  const bare = results.get(list[0]) ?? [];
  const handWritten = results.get(list[1]) ?? [];
  const serverCpu = (r: RouteRun): number | null =>
    r.hostCpu === null || r.postgresCpu === null ? null : r.hostCpu + r.postgresCpu + (r.redisCpu ?? 0);
  const rows = list.map((route) => {
    const runs = results.get(route) ?? [];
    const toBare = runs.map((r, run) => r.perSecond / bare[run].perSecond);
    const toHand = runs.map((r, run) => r.perSecond / handWritten[run].perSecond);
    const total = runs.map(serverCpu);
    // How many of this route's requests take the server CPU of one hand-written page: steadier than
    // rates on a machine whose other work comes and goes.
    const handCpuRatio = runs.map((r, run) => {
      const own = serverCpu(r);
      const hand = serverCpu(handWritten[run]);
      return own === null || hand === null ? null : hand / own;
    });
    return `| ${route.name} | ${fmt(median(runs.map((r) => r.perSecond)), 0)} | ${ratioCell(toBare)} | ${ratioCell(toHand)} | ${fmt(median(runs.map((r) => r.sqlPerRequest)), 2)} | ${fmt(median(runs.map((r) => r.redisPerRequest)), 2)} | ${measured(
      runs.map((r) => r.hostCpu),
      0,
    )} | ${measured(
      runs.map((r) => r.postgresCpu),
      0,
    )} | ${measured(
      runs.map((r) => r.redisCpu),
      0,
    )} | ${measured(total, 0)} | ${measured(handCpuRatio, 2)} | ${measured(
      runs.map((r) => r.clientCpu),
      0,
    )} |`;
  });
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} on a 2-core machine shared with other work: one host process on PostgreSQL with ${settings.events.toLocaleString('en-US')} events in one account (vacuumed and analyzed), loaded one route at a time from a separate process over ${settings.connections} keep-alive connections for ${settings.seconds} s a run, in turns of ${settings.sliceSeconds} s, ${settings.runs} runs; requests/s are medians, ratios the median (and range) of each run's ratio to the route run beside it. Only the ratios compare: the machine's other work moves every absolute figure.`,
    '',
    "| route | requests/s | ratio to the bare route | ratio to the hand-written feed | SQL statements / request | Redis commands / request | host Node, µs CPU / request | PostgreSQL | Redis | server total | hand-written page 1's server CPU over this route's | load generator |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
