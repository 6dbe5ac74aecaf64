// `npm run demo`: installs the dependencies when they are missing, makes sure a Redis answers
// (starting a private redis-server for the demo's lifetime when none does and one is installed),
// compiles lib + sample-app with tsc into .demo-build/ and runs the app. Plain Node with no
// dependencies, since it runs before node_modules exists.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { clearTimeout, setInterval, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { URL } from 'node:url';
import { ensureDependencies, ROOT } from '../.ci/ensure-deps.mjs';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The signal that asked the demo to stop. */
let stopSignal;
/** The child process of the current step: npm ci, tsc or the app. */
let step;
/** The private redis-server, when the demo started one: { child, dir }. */
let privateRedis;

/** The Redis the app will use, read as sample-app/demo-config.ts reads it. */
function configuredRedis(env) {
  let target;
  if (env.REDIS_URL) {
    const url = new URL(env.REDIS_URL);
    target = {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
      port: url.port ? Number(url.port) : 6379,
      tls: url.protocol === 'rediss:',
    };
  } else {
    target = { host: env.REDIS_HOST ?? '127.0.0.1', port: Number(env.REDIS_PORT ?? 6379), tls: false };
  }
  if (!Number.isInteger(target.port) || target.port <= 0 || target.port > 65535)
    throw new Error(`the Redis port is not a port: ${target.port}`);
  return target;
}

function describe({ host, port }) {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Whether something answers Redis's PING at this address: PONG, or an error such as NOAUTH. */
function redisAnswers({ host, port, tls }, timeoutMs = 1500) {
  return new Promise((resolveAnswer) => {
    const socket = tls
      ? tlsConnect({ host, port, servername: isIP(host) ? undefined : host, rejectUnauthorized: false })
      : connect({ host, port });
    let settled = false;
    const settle = (answers) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolveAnswer(answers);
    };
    socket.setTimeout(timeoutMs, () => settle(false));
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    // A RESP reply starts with + (a status such as PONG) or - (an error).
    socket.once('data', (chunk) => settle(chunk[0] === 0x2b || chunk[0] === 0x2d));
    socket.once('error', () => settle(false));
    socket.once('close', () => settle(false));
  });
}

function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function freeLoopbackPort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

function running(child) {
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

function childExit(child) {
  return new Promise((resolveExit) => {
    if (!running(child)) return resolveExit({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolveExit({ code, signal }));
    child.once('error', (error) => resolveExit({ code: 1, signal: null, error }));
  });
}

/** Runs one step of the demo in the foreground; a stop signal is passed on to it. */
function run(command, args, options = {}) {
  const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  step = child;
  return childExit(child).finally(() => {
    if (step === child) step = undefined;
  });
}

/** Starts redis-server on a free loopback port, without persistence, and returns the port. */
async function startPrivateRedis(redisServer) {
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    const dir = mkdtempSync(join(tmpdir(), 'interview-demo-redis-'));
    const logfile = join(dir, 'redis.log');
    const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'];
    // Its own process group, like the app's: a Ctrl-C reaches this script only, which stops the
    // app first and Redis after it, so that the app's workers can close their connections.
    const child = spawn(redisServer, [...args, '--dir', dir, '--logfile', logfile, '--daemonize', 'no'], {
      stdio: 'ignore',
      detached: true,
    });
    privateRedis = { child, dir };
    for (let waited = 0; waited < 10_000 && running(child) && !stopSignal; waited += 100) {
      if (await redisAnswers({ host: '127.0.0.1', port, tls: false }, 500)) return port;
      await sleep(100);
    }
    let log = '';
    try {
      log = readFileSync(logfile, 'utf8').trim();
    } catch {
      // no log yet
    }
    await stopPrivateRedis();
    if (stopSignal) return undefined;
    // Another process may have taken the port between the check and redis-server's start.
    if (attempt === 3) throw new Error(`redis-server did not start on 127.0.0.1:${port}\n${log}`);
  }
}

async function stopPrivateRedis() {
  if (!privateRedis) return;
  const { child, dir } = privateRedis;
  if (running(child)) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await childExit(child);
    clearTimeout(timer);
  }
  privateRedis = undefined;
  rmSync(dir, { recursive: true, force: true });
}

function onSignal(signal) {
  // npm passes the terminal's Ctrl-C on as well: the first signal is the one that counts.
  if (stopSignal) return;
  stopSignal = signal;
  const child = step;
  if (!running(child)) return;
  child.kill(signal);
  setTimeout(() => running(child) && child.kill('SIGKILL'), 15_000).unref();
}

async function main() {
  let target;
  try {
    target = configuredRedis(process.env);
  } catch (error) {
    console.error(`REDIS_URL, REDIS_HOST or REDIS_PORT is not usable: ${error.message}`);
    return 1;
  }
  let redisServer;
  if (!(await redisAnswers(target))) {
    redisServer = onPath('redis-server');
    if (!redisServer) {
      console.error(
        `No Redis answers at ${describe(target)} and redis-server is not on the PATH: install Redis ` +
          '(e.g. `sudo apt install redis-server`) or set REDIS_URL to one that runs.',
      );
      return 1;
    }
  }
  if (stopSignal) return 1;

  await ensureDependencies({ onSpawn: (child) => (step = child) });
  step = undefined;
  if (stopSignal) return 1;

  const env = { ...process.env };
  if (redisServer) {
    const port = await startPrivateRedis(redisServer);
    if (stopSignal) return 1;
    env.REDIS_URL = `redis://127.0.0.1:${port}`;
    delete env.REDIS_HOST;
    delete env.REDIS_PORT;
    console.log(
      `No Redis answers at ${describe(target)}: started a private redis-server at ${env.REDIS_URL} ` +
        'for this demo (no persistence; it stops with the demo).',
    );
  }

  const tsc = await run(process.execPath, [
    join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    join('sample-app', 'tsconfig.json'),
  ]);
  if (stopSignal || tsc.code !== 0) return tsc.code || 1;

  // Its own process group, so that a Ctrl-C reaches it once, from this script.
  const app = await run(process.execPath, [join('.demo-build', 'sample-app', 'main.js')], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
  });
  return app.code ?? 1;
}

async function finish(code) {
  await stopPrivateRedis();
  if (!stopSignal) process.exit(code);
  // Stopped by a signal: end by the same signal, as a shell expects.
  for (const signal of SIGNALS) process.removeListener(signal, onSignal);
  process.kill(process.pid, stopSignal);
}

for (const signal of SIGNALS) process.on(signal, onSignal);
// npm runs this script through `sh -c`, and a SIGTERM to npm ends that shell without passing it on:
// a new parent means the demo was stopped, so it stops as it would on SIGTERM.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && onSignal('SIGTERM'), 1000).unref();
// The last resort, should this script end some other way: leave no child process behind.
process.on('exit', () => {
  if (running(step)) step.kill('SIGKILL');
  if (privateRedis) {
    if (running(privateRedis.child)) privateRedis.child.kill('SIGKILL');
    rmSync(privateRedis.dir, { recursive: true, force: true });
  }
});

main().then(finish, (error) => {
  if (!stopSignal) console.error(`demo: ${error instanceof Error ? error.message : error}`);
  return finish(1);
});
