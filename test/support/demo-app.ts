import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, WAIT_MS } from './receiver.js';
import { deleteQueueKeys, REDIS } from './webhooks.js';

/** The sample app running in a child process, on its own port, SQLite file and queue prefix. */
export interface DemoApp {
  baseUrl: string;
  queuePrefix: string;
  /** The app's last output lines, to tell why it failed. */
  output(): string;
  stop(): Promise<void>;
}

const OUTPUT_LINES = 60;

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts sample-app/main.ts from source (as `npm run demo` runs it built) and waits for its page. */
export async function startDemoApp(): Promise<DemoApp> {
  const port = await freeLoopbackPort();
  const dir = mkdtempSync(join(tmpdir(), 'interview-demo-test-'));
  const queuePrefix = `demo-test-${randomBytes(6).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEMO_HOST: '127.0.0.1',
    PORT: String(port),
    DEMO_DB: join(dir, 'demo.sqlite'),
    REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
    DEMO_QUEUE_PREFIX: queuePrefix,
  };
  for (const name of ['DEMO_WEBHOOK_SECRET', 'DEMO_ALLOWED_HOSTS', 'REDIS_HOST', 'REDIS_PORT'])
    delete env[name];
  const child = fork(new URL('../../sample-app/main.ts', import.meta.url), [], {
    env,
    execArgv: ['--import', new URL('./register-typescript.mjs', import.meta.url).href],
    silent: true,
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    lines.push(...chunk.toString('utf8').split('\n'));
    lines.splice(0, Math.max(0, lines.length - OUTPUT_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  const app: DemoApp = {
    baseUrl,
    queuePrefix,
    output: () => lines.join('\n'),
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
      await exited(child);
      clearTimeout(killer);
      await deleteQueueKeys(queuePrefix);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await eventually(async () => {
      if (child.exitCode !== null)
        throw new Error(`the demo app exited with ${child.exitCode}:\n${app.output()}`);
      const answer = await fetch(`${baseUrl}/developers`).catch(() => null);
      return answer?.status === 200;
    });
  } catch (error) {
    await app.stop();
    throw error;
  }
  return app;
}
