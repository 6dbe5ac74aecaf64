import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { ask, runScript } from './child-process.js';
import type { DeliveryRun, Topology } from './delivery-bench.js';
import { median } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const CONCURRENCY = 50;
const README = new URL('../../README.md', import.meta.url);

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

async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const child = fork(new URL('./receiver.js', import.meta.url));
  const port = await ask<number>(child, {}, 'port');
  return { url: `http://127.0.0.1:${port}/hook`, stop: () => child.kill() };
}

/**
 * (c) in a fresh process each run, as every engine run is: a loop repeated in one process measures
 * an ever warmer JIT (here 9,500/s on its first loop, 12,500–14,800/s on the next ones).
 */
function rawPostLoopProcess(url: string, total: number): Promise<number> {
  return runScript(
    './raw-post-process.js',
    [url, String(total), String(CONCURRENCY), EVENT_BODY],
    'perSecond',
  );
}

/** (a) or (b) in a fresh process each run, for the same reason as (c). */
function engineProcess(
  url: string,
  events: number,
  endpoints: number,
  topology: Topology,
): Promise<DeliveryRun> {
  return runScript(
    './engine-process.js',
    [url, String(events), String(endpoints), String(CONCURRENCY), topology],
    'result',
  );
}

const fmt = (value: number, digits: number): string => value.toFixed(digits);

async function main(): Promise<void> {
  const receiver = await startReceiver();
  const rawTotal = Math.round(20_000 * SCALE);
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
  // Interleaved, so that the machine's background noise falls on every scenario alike.
  for (let run = 0; run < RUNS; run++) {
    raw.push(await rawPostLoopProcess(receiver.url, rawTotal));
    const line = [`run ${run + 1}: (c) ${fmt(raw[run], 0)}/s`];
    for (const scenario of scenarios) {
      const result = await engineProcess(
        receiver.url,
        Math.round(scenario.events * SCALE),
        scenario.endpoints,
        scenario.topology,
      );
      scenario.runs.push(result);
      line.push(`${scenario.name.slice(0, 3)} ${scenario.topology} ${fmt(result.perSecond, 0)}/s`);
    }
    console.log(line.join(', '));
  }
  receiver.stop();

  // Each run's ratio compares an engine run with the raw loop that ran next to it, so that the
  // machine's drift over minutes (this kind of machine varies by a third) cancels out; the table
  // gives the median ratio and its range.
  const rawMedian = median(raw);
  const rows = scenarios.map((scenario) => {
    const perSecond = median(scenario.runs.map((r) => r.perSecond));
    const ratios = scenario.runs.map((r, run) => r.perSecond / raw[run]);
    const range = `${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}`;
    return `| ${scenario.name} | ${scenario.topology === 'in-process' ? 'in the publishing process' : 'in its own process'} | ${scenario.runs[0].deliveries.toLocaleString('en-US')} | ${fmt(perSecond, 0)} | **${fmt(median(ratios), 2)}** | ${range} | ${fmt(median(scenario.runs.map((r) => r.sqlPerDelivery)), 3)} | ${fmt(median(scenario.runs.map((r) => r.redisPerDelivery)), 3)} | ${fmt(median(scenario.runs.map((r) => r.publishSqlPerEvent)), 3)} |`;
  });
  const table = [
    `Measured ${new Date().toISOString().slice(0, 10)} on a 2-core machine: ${RUNS} interleaved runs; deliveries/s are medians, the ratio is the median of each run's ratio to the raw loop run beside it; PostgreSQL and Redis on loopback; the receiver a separate Node process answering 200; ${CONCURRENCY} requests in flight.`,
    '',
    '| scenario | worker | deliveries | deliveries/s | ratio to (c) | ratio range | engine SQL statements / delivery | Redis commands / delivery | publish SQL statements / event |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    `| (c) raw undici POST loop | – | ${rawTotal.toLocaleString('en-US')} | ${fmt(rawMedian, 0)} | 1.00 | ${fmt(Math.min(...raw), 0)}–${fmt(Math.max(...raw), 0)}/s | – | – | – |`,
  ].join('\n');
  console.log(table);
  const readme = readFileSync(README, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (readme.includes(start) && readme.includes(end)) {
    writeFileSync(
      README,
      readme.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${table}\n${end}`),
    );
    console.log('README.md updated.');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
