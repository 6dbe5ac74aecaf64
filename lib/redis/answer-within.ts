/**
 * `answer`, or a rejection once `ms` have passed without one. For Redis commands on a request's
 * or a publish's path, which must not wait for a Redis that has gone quiet; a late settlement of
 * `answer` is ignored.
 */
export async function answerWithin<T>(answer: Promise<T>, ms: number): Promise<T> {
  answer.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
