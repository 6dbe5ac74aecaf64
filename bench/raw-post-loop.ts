import { Agent, request } from 'undici';
import { signWebhook } from '../lib/signing/index.js';
import { processCpuNanos } from './process-cpu.js';

export interface RawPostLoopRun {
  perSecond: number;
  /** CPU this process used per request, in microseconds; null where it could not be read. */
  clientCpuPerRequest: number | null;
}

/** (c) The physical limit: a raw undici POST loop, signed bodies, same receiver, same concurrency. */
export async function rawPostLoop(
  url: string,
  total: number,
  concurrency: number,
  body: string,
): Promise<RawPostLoopRun> {
  const agent = new Agent({ connections: concurrency });
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  let next = 0;
  const started = performance.now();
  const cpuBefore = processCpuNanos(process.pid);
  const loop = async (): Promise<void> => {
    while (next < total) {
      next++;
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'evt_bench',
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(secret, 'evt_bench', timestamp, body),
        },
        body,
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`receiver answered ${response.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = processCpuNanos(process.pid);
  await agent.close();
  return {
    perSecond: total / seconds,
    clientCpuPerRequest:
      cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / 1000 / total,
  };
}
