// Runs `npm ci` when a dependency of package.json is not installed, or not at the version
// package-lock.json pins, so that `npm test` and `npm run demo` work on a fresh clone. It runs
// before node_modules exists, so it uses Node's own modules only; when everything is in place it
// reads a few files and returns (the `pretest` script, and the first step of `npm run demo`).
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The dependencies and devDependencies that are missing from node_modules or differ from the lockfile. */
export function missingDependencies(root = ROOT) {
  const manifest = readJson(join(root, 'package.json')) ?? {};
  const locked = readJson(join(root, 'package-lock.json'))?.packages ?? {};
  const names = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ]);
  const missing = [];
  for (const name of names) {
    const dir = join(root, 'node_modules', name);
    const installed = readJson(join(dir, 'package.json'));
    const lock = locked[`node_modules/${name}`];
    if (!installed) missing.push(name);
    // A symbolic link is an `npm link`ed checkout, on purpose: its version is its own.
    else if (lock?.version && !lock.link && !isLink(dir) && installed.version !== lock.version)
      missing.push(`${name} (${installed.version} installed, ${lock.version} locked)`);
  }
  return missing;
}

/** npm itself: the one running this script when there is one, else the `npm` on the PATH. */
function npmCommand() {
  const execPath = process.env.npm_execpath;
  if (execPath && /^npm-cli\.[cm]?js$/.test(basename(execPath)))
    return { command: process.execPath, args: [execPath], shell: false };
  return { command: 'npm', args: [], shell: process.platform === 'win32' };
}

function summary(names) {
  return names.length <= 4
    ? names.join(', ')
    : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/**
 * Installs the dependencies with `npm ci` unless they are all in place. `onSpawn` receives the npm
 * process, for a caller that stops it on a signal. Rejects when npm fails or leaves some missing.
 */
export async function ensureDependencies({ root = ROOT, onSpawn } = {}) {
  const missing = missingDependencies(root);
  if (missing.length === 0) return;
  const env = { ...process.env };
  // better-sqlite3 compiles from source, against the local Node headers when there are some.
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node_version.h'))
    env.npm_config_nodedir = '/usr';
  const hasLockfile = existsSync(join(root, 'package-lock.json'));
  const args = [hasLockfile ? 'ci' : 'install', '--no-audit', '--no-fund'];
  console.log(
    `Dependencies missing or not as locked (${summary(missing)}): running npm ${args.join(' ')}` +
      ' (better-sqlite3 may compile from source: a few minutes)...',
  );
  const npm = npmCommand();
  const child = spawn(npm.command, [...npm.args, ...args], {
    cwd: root,
    env,
    stdio: 'inherit',
    shell: npm.shell,
  });
  onSpawn?.(child);
  const code = await new Promise((resolveCode, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => resolveCode(signal ? signal : exitCode));
  });
  if (code !== 0) throw new Error(`npm ${args[0]} failed (${code})`);
  const still = missingDependencies(root);
  if (still.length > 0)
    throw new Error(
      `still missing after npm ${args[0]}: ${summary(still)} (is NODE_ENV=production or npm's omit=dev set?)`,
    );
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureDependencies().catch((error) => {
    console.error(`ensure-deps: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  });
}
