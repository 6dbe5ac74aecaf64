import { type ChildProcess, fork } from 'node:child_process';

/** Sends `message` (unless empty) and waits for the child's reply that carries `key`. */
export function ask<T>(child: ChildProcess, message: object, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const listener = (reply: Record<string, unknown>): void => {
      if (key in reply) {
        child.off('message', listener);
        child.off('exit', exited);
        resolve(reply[key] as T);
      }
    };
    const exited = (code: number | null): void => reject(new Error(`child exited with ${code}`));
    child.on('message', listener);
    child.once('exit', exited);
    if (Object.keys(message).length > 0) child.send(message);
  });
}

/** Runs a bench script in a fresh process and answers what it reports under `key`. */
export function runScript<T>(script: string, args: string[], key: string): Promise<T> {
  return ask<T>(fork(new URL(script, import.meta.url), args), {}, key);
}
