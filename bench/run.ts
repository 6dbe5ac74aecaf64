import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { deliveryRun, type DeliveryRun } from './delivery-bench.js';
import { rawPostLoop } from './raw-post-loop.js';
import { median } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = 50;
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
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

async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const child = fork(new URL('./receiver.js', import.meta.url));
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m: { port: number }) => resolve(m.port)),
  );
  return { url: `http://127.0.0.1:${port}/hook`, stop: () => child.kill() };
}

interface Row {
  name: string;
  deliveries: number;
  perSecond: number;
  ratio: number;
  sql: number | null;
  redis: number | null;
  publishSql: number | null;
}

async function main(): Promise<void> {
  const receiver = await startReceiver();
  const rawTotal = 20_000 * SCALE;
  const raw: number[] = [];
  const single: DeliveryRun[] = [];
  const fanout: DeliveryRun[] = [];
  // Interleaved, so that the machine's background noise falls on every scenario alike.
  for (let run = 0; run < RUNS; run++) {
    raw.push(await rawPostLoop(receiver.url, rawTotal, CONCURRENCY, EVENT_BODY));
    single.push(await deliveryRun(receiver.url, 10_000 * SCALE, 1, CONCURRENCY));
    if (process.env.BENCH_ONLY === 'a') fanout.push(single[run]);
    else fanout.push(await deliveryRun(receiver.url, 1_000 * SCALE, 100, CONCURRENCY));
    console.log(
      `run ${run + 1}: raw ${raw[run].toFixed(0)}/s, (a) ${single[run].perSecond.toFixed(0)}/s (published in ${single[run].publishSeconds.toFixed(2)} s), (b) ${fanout[run].perSecond.toFixed(0)}/s`,
    );
  }
  receiver.stop();
  const rawMedian = median(raw);
  const summarize = (name: string, runs: DeliveryRun[]): Row => ({
    name,
    deliveries: runs[0].deliveries,
    perSecond: median(runs.map((r) => r.perSecond)),
    ratio: median(runs.map((r) => r.perSecond)) / rawMedian,
    sql: median(runs.map((r) => r.sqlPerDelivery)),
    redis: median(runs.map((r) => r.redisPerDelivery)),
    publishSql: median(runs.map((r) => r.publishSqlPerEvent)),
  });
  const rows: Row[] = [
    summarize('(a) 10,000 events → 1 endpoint', single),
    summarize('(b) 1,000 events → 100 endpoints', fanout),
    {
      name: '(c) raw undici POST loop',
      deliveries: rawTotal,
      perSecond: rawMedian,
      ratio: 1,
      sql: null,
      redis: null,
      publishSql: null,
    },
  ];
  const fmt = (value: number | null, digits: number): string =>
    value === null ? '–' : value.toFixed(digits);
  const table = [
    `Measured ${new Date().toISOString().slice(0, 10)} on this machine (${RUNS} interleaved runs, medians; PostgreSQL and Redis on loopback, the receiver a separate Node process answering 200, ${CONCURRENCY} in flight).`,
    '',
    '| scenario | deliveries | deliveries/s | ratio to (c) | engine SQL statements / delivery | Redis commands / delivery | publish SQL statements / event |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.deliveries.toLocaleString('en-US')} | ${row.perSecond.toFixed(0)} | ${row.ratio.toFixed(2)} | ${fmt(row.sql, 3)} | ${fmt(row.redis, 3)} | ${fmt(row.publishSql, 1)} |`,
    ),
  ].join('\n');
  console.log(table);
  const readme = readFileSync(README, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  if (readme.includes(start) && readme.includes(end)) {
    const updated = readme.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${table}\n${end}`);
    writeFileSync(README, updated);
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
