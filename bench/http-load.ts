import { Agent, request } from 'undici';
import { processCpuNanos } from './process-cpu.js';

export interface HttpLoadRun {
  requests: number;
  seconds: number;
  /** CPU this process used over the load, in microseconds; null where it could not be read. */
  clientCpu: number | null;
}

/** One load: GET `url` with `authorization` (none if empty) for `seconds`. */
export interface HttpLoad {
  url: string;
  authorization: string;
  seconds: number;
  connections: number;
}

/**
 * GETs the load's URL for its seconds over `connections` keep-alive connections, each sending its
 * next request once the last one's answer is read, as autocannon does. Any answer but 200 fails the
 * run: a refusal (a 429, say) is not the route's cost.
 */
export async function httpLoad({ url, authorization, seconds, connections }: HttpLoad): Promise<HttpLoadRun> {
  const agent = new Agent({ connections, pipelining: 1 });
  const headers = authorization ? { authorization } : {};
  let requests = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const cpuBefore = processCpuNanos(process.pid);
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const response = await request(url, { method: 'GET', dispatcher: agent, headers });
      const body = await response.body.text();
      if (response.statusCode !== 200) {
        throw new Error(`${url} answered ${response.statusCode}: ${body.slice(0, 300)}`);
      }
      requests++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = processCpuNanos(process.pid);
  await agent.close();
  return {
    requests,
    seconds: elapsed,
    clientCpu: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / 1000,
  };
}
