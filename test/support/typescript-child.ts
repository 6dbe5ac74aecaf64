import { type ChildProcess, fork } from 'node:child_process';

/**
 * Starts a TypeScript file of test/support in a child process (through register-typescript.mjs)
 * and resolves with the child and the first message it sends; rejects if it exits before sending one.
 */
export async function startTypeScriptChild<T>(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; message: T }> {
  const child = fork(new URL(script, import.meta.url), args, {
    env,
    execArgv: ['--import', new URL('./register-typescript.mjs', import.meta.url).href],
  });
  const message = await new Promise<T>((resolve, reject) => {
    child.once('message', (sent) => resolve(sent as T));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, message };
}
