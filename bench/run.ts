import { fork } from 'node:child_process';
import { apiBench } from './api-bench.js';
import { ask, runScript } from './child-process.js';
import type { CpuSplit, DeliveryRun, Topology } from './delivery-bench.js';
import { CpuMeter } from './process-cpu.js';
import type { RawPostLoopRun } from './raw-post-loop.js';
import { writeResults } from './results-page.js';
import { median } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const CONCURRENCY = 50;
/** `api` or `delivery` runs that part alone; unset, both run. */
const ONLY = process.env.BENCH_ONLY;
/** Seconds each API route is loaded per run, before BENCH_SCALE. */
const API_SECONDS = Number(process.env.BENCH_API_SECONDS ?? 8);
/** The API runs: each is a load of every route, so three give a median without an hour's run. */
const API_RUNS = Number(process.env.BENCH_API_RUNS ?? 3);

const EVENT_BODY = JSON.stringify({
  id: 'evt_0000000000bench0000000000',
  object: 'event',
  type: 'result.ready',
  api_version: '2026-11-21',
  livemode: true,
  created_at: new Date().toISOString(),
  data: {
    object: {
      id: 'res_1',
      object: 'result',
      status: 'ready',
      score: 87,
      candidate: { name: 'Ada Lovelace' },
    },
  },
});

interface Scenario {
  name: string;
  events: number;
  endpoints: number;
  topology: Topology;
  runs: DeliveryRun[];
}

interface Receiver {
  url: string;
  pid: number;
  stop: () => void;
}

/** (c) and the CPU of the receiver while it ran, per request. */
interface RawRun extends RawPostLoopRun {
  receiverCpuPerRequest: number | null;
}

async function startReceiver(): Promise<Receiver> {
  const child = fork(new URL('./receiver.js', import.meta.url));
  const port = await ask<number>(child, {}, 'port');
  return { url: `http://127.0.0.1:${port}/hook`, pid: child.pid ?? 0, stop: () => child.kill() };
}

/**
 * A raw loop in a fresh process each run, as every engine run is: a loop repeated in one process
 * would measure an ever warmer JIT (docs/benchmarks.md).
 */
async function rawPostLoopProcess(receiver: Receiver, total: number): Promise<RawRun> {
  const cpu = new CpuMeter();
  cpu.start([receiver.pid]);
  const run = await runScript<RawPostLoopRun>(
    './raw-post-process.js',
    [receiver.url, String(total), String(CONCURRENCY), EVENT_BODY],
    'run',
  );
  const receiverCpu = cpu.used([receiver.pid]);
  return { ...run, receiverCpuPerRequest: receiverCpu === null ? null : receiverCpu / total };
}

/** (a), (b) or (d) in a fresh process each run, for the same reason as (c). */
function engineProcess(
  receiver: Receiver,
  events: number,
  endpoints: number,
  topology: Topology,
  silentEndpoint = false,
): Promise<DeliveryRun> {
  return runScript(
    './engine-process.js',
    [
      receiver.url,
      String(receiver.pid),
      String(events),
      String(endpoints),
      String(CONCURRENCY),
      topology,
      silentEndpoint ? 'silent' : 'none',
    ],
    'result',
  );
}

const fmt = (value: number, digits: number): string => value.toFixed(digits);

const eventsOf = (scenario: Scenario): number => Math.round(scenario.events * SCALE);
const deliveriesOf = (scenario: Scenario): number => eventsOf(scenario) * scenario.endpoints;
const workerLabel = (scenario: Scenario): string =>
  scenario.topology === 'in-process' ? 'in the publishing process' : 'in its own process';

/** The median of what could be measured, to `digits` decimals, or a dash. */
function measuredMedian(values: readonly (number | null)[], digits: number): string {
  const measured = values.filter((value): value is number => value !== null);
  return measured.length === 0 ? '–' : fmt(median(measured), digits);
}

/** The median of what could be measured, in whole microseconds, or a dash. */
const micros = (values: readonly (number | null)[]): string => measuredMedian(values, 0);

const CPU_PARTS: readonly (keyof CpuSplit)[] = ['publisher', 'worker', 'postgres', 'receiver', 'redis'];

function cpuTotal(split: CpuSplit): number | null {
  const parts = CPU_PARTS.map((part) => split[part]).filter((value): value is number => value !== null);
  return parts.length === 0 ? null : parts.reduce((sum, value) => sum + value, 0);
}

/** The delivery engine against raw loops, as Markdown. */
async function deliveryPart(): Promise<string> {
  const receiver = await startReceiver();
  const rawTotal = Math.round(20_000 * SCALE);
  const rawRuns: RawRun[] = [];
  const raw: number[] = [];
  const scenarios: Scenario[] = [
    {
      name: '(a) 10,000 events → 1 endpoint',
      events: 10_000,
      endpoints: 1,
      topology: 'in-process',
      runs: [],
    },
    {
      name: '(a) 10,000 events → 1 endpoint',
      events: 10_000,
      endpoints: 1,
      topology: 'worker-process',
      runs: [],
    },
    // (a) four times as long: how the ratio looks once cold start weighs less on both sides.
    {
      name: '(a) 40,000 events → 1 endpoint',
      events: 40_000,
      endpoints: 1,
      topology: 'worker-process',
      runs: [],
    },
    {
      name: '(b) 1,000 events → 100 endpoints',
      events: 1_000,
      endpoints: 100,
      topology: 'in-process',
      runs: [],
    },
    {
      name: '(b) 1,000 events → 100 endpoints',
      events: 1_000,
      endpoints: 100,
      topology: 'worker-process',
      runs: [],
    },
  ];
  // (d): (a) with its worker in its own process, and every event also sent to an endpoint that
  // never answers.
  const attacked: DeliveryRun[] = [];
  const attackedEvents = Math.round(10_000 * SCALE);
  // A raw loop of as many requests as each scenario has deliveries: its cold start weighs as much
  // on it as the engine's does on the scenario (10,000 requests run at about 0.8 and 100,000 at
  // about 1.3 times the rate of 20,000).
  const matched = new Map<number, number[]>(scenarios.map((scenario) => [deliveriesOf(scenario), []]));
  // Interleaved, so that the machine's background noise falls on every scenario alike.
  for (let run = 0; run < RUNS; run++) {
    const rawRun = await rawPostLoopProcess(receiver, rawTotal);
    rawRuns.push(rawRun);
    raw.push(rawRun.perSecond);
    const line = [`run ${run + 1}: (c) ${fmt(raw[run], 0)}/s`];
    for (const [requests, rates] of matched) {
      rates.push((await rawPostLoopProcess(receiver, requests)).perSecond);
      line.push(`raw ${requests} ${fmt(rates[run], 0)}/s`);
    }
    for (const scenario of scenarios) {
      const result = await engineProcess(receiver, eventsOf(scenario), scenario.endpoints, scenario.topology);
      scenario.runs.push(result);
      line.push(`${scenario.name.slice(0, 3)} ${scenario.topology} ${fmt(result.perSecond, 0)}/s`);
    }
    attacked.push(await engineProcess(receiver, attackedEvents, 1, 'worker-process', true));
    line.push(`(d) ${fmt(attacked[run].perSecond, 0)}/s`);
    console.log(line.join(', '));
  }
  receiver.stop();

  // Each run's ratio compares an engine run with the raw loop that ran next to it, so that the
  // machine's drift over minutes (this kind of machine varies by a third) cancels out; the table
  // gives the median ratio and its range.
  const rawMedian = median(raw);
  const ownProcessA = scenarios.find((s) => s.endpoints === 1 && s.topology === 'worker-process')?.runs ?? [];
  const rows = scenarios.map((scenario) => {
    const perSecond = median(scenario.runs.map((r) => r.perSecond));
    const ratios = scenario.runs.map((r, run) => r.perSecond / raw[run]);
    const range = `${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}`;
    const alike = matched.get(deliveriesOf(scenario)) ?? [];
    const matchedRatios = scenario.runs.map((r, run) => r.perSecond / alike[run]);
    return `| ${scenario.name} | ${workerLabel(scenario)} | ${scenario.runs[0].deliveries.toLocaleString('en-US')} | ${fmt(perSecond, 0)} | **${fmt(median(ratios), 2)}** | ${range} | ${fmt(median(matchedRatios), 2)} (${fmt(Math.min(...matchedRatios), 2)}–${fmt(Math.max(...matchedRatios), 2)}) | ${fmt(median(scenario.runs.map((r) => r.sqlPerDelivery)), 3)} | ${fmt(median(scenario.runs.map((r) => r.redisPerDelivery)), 3)} | ${fmt(median(scenario.runs.map((r) => r.publishSqlPerEvent)), 3)} |`;
  });
  const table = [
    `Measured ${new Date().toISOString().slice(0, 10)} on a 2-core machine: ${RUNS} interleaved runs; deliveries/s are medians, the ratio is the median of each run's ratio to the raw loop run beside it; PostgreSQL and Redis on loopback; the receiver a separate Node process answering 200; ${CONCURRENCY} requests in flight.`,
    '',
    '| scenario | worker | deliveries | deliveries/s | ratio to (c) | ratio range | ratio to a raw loop of as many requests | engine SQL statements / delivery | Redis commands / delivery | publish SQL statements / event |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    `| (c) raw undici POST loop | – | ${rawTotal.toLocaleString('en-US')} | ${fmt(rawMedian, 0)} | 1.00 | ${fmt(Math.min(...raw), 0)}–${fmt(Math.max(...raw), 0)}/s | – | – | – | – |`,
    ...[...matched].map(
      ([requests, rates]) =>
        `| raw undici POST loop of as many requests | – | ${requests.toLocaleString('en-US')} | ${fmt(median(rates), 0)} | ${fmt(median(rates.map((rate, run) => rate / raw[run])), 2)} | ${fmt(Math.min(...rates), 0)}–${fmt(Math.max(...rates), 0)}/s | 1.00 | – | – | – |`,
    ),
    '',
    `(d) is (a) with the worker in its own process while every event also goes to a second endpoint that accepts the connection and never answers (each send to it holds its slot for the whole 10 s deadline); timed to the last delivery to the endpoint that answers:`,
    '',
    '| scenario | deliveries/s to the endpoint that answers | ratio to (a) in its own process, same run | ratio to (c) |',
    '|---|---:|---:|---:|',
    `| (d) ${attackedEvents.toLocaleString('en-US')} events → 1 endpoint, and to 1 that never answers | ${fmt(median(attacked.map((r) => r.perSecond)), 0)} | ${fmt(median(attacked.map((r, run) => r.perSecond / ownProcessA[run].perSecond)), 2)} | ${fmt(median(attacked.map((r, run) => r.perSecond / raw[run])), 2)} |`,
    '',
    'CPU per delivery over the timed window, in µs (medians; all threads of each process, read from /proc; the PostgreSQL column sums the backends serving the run):',
    '',
    '| scenario | worker | publishing process | worker process | PostgreSQL | receiver | Redis | total |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...scenarios.map((scenario) => {
      const cells = CPU_PARTS.map((part) => micros(scenario.runs.map((r) => r.cpuPerDelivery[part])));
      const total = micros(scenario.runs.map((r) => cpuTotal(r.cpuPerDelivery)));
      return `| ${scenario.name} | ${workerLabel(scenario)} | ${cells.join(' | ')} | ${total} |`;
    }),
    `| (c) raw undici POST loop | – | ${micros(rawRuns.map((r) => r.clientCpuPerRequest))} (the loop) | – | – | ${micros(rawRuns.map((r) => r.receiverCpuPerRequest))} | – | ${micros(rawRuns.map((r) => (r.clientCpuPerRequest === null || r.receiverCpuPerRequest === null ? null : r.clientCpuPerRequest + r.receiverCpuPerRequest)))} |`,
    '',
    "Each run in two phases (medians): while the publishers publish, from the first publish to the last one returned, and after, when the worker sends what they left it; the rate after publishing is the deliveries left over the time from the last publish returned to the last delivery recorded, and its ratio is to the raw loop run beside it (not the target's measure, which times the whole run):",
    '',
    '| scenario | worker | publishing, s | delivered while publishing | deliveries/s while publishing | deliveries/s after publishing | its ratio to (c) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...scenarios.map((scenario) => {
      const phases = scenario.runs.map((r) => r.phases);
      const after = phases.map((p) => p.perSecondAfterPublishing);
      const afterRatios = after.map((rate, run) => (rate === null ? null : rate / raw[run]));
      return `| ${scenario.name} | ${workerLabel(scenario)} | ${fmt(median(phases.map((p) => p.publishingSeconds)), 2)} | ${fmt(median(phases.map((p) => p.deliveredWhilePublishing)), 0)} | ${fmt(median(phases.map((p) => p.deliveredWhilePublishing / p.publishingSeconds)), 0)} | ${measuredMedian(after, 0)} | ${measuredMedian(afterRatios, 2)} |`;
    }),
  ].join('\n');
  return table;
}

async function main(): Promise<void> {
  if (ONLY !== undefined && ONLY !== 'api' && ONLY !== 'delivery') {
    throw new Error(`BENCH_ONLY is api or delivery, not ${ONLY}`);
  }
  if (ONLY !== 'api') {
    const table = await deliveryPart();
    console.log(table);
    await writeResults('delivery', table);
  }
  if (ONLY !== 'delivery') {
    const table = await apiBench({
      events: Math.round(100_000 * SCALE),
      seconds: Math.max(1, API_SECONDS * SCALE),
      sliceSeconds: 1,
      connections: CONCURRENCY,
      runs: API_RUNS,
    });
    console.log(table);
    await writeResults('api', table);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
