import { ParameterInvalidError } from '../errors/api-error.js';
import { MAX_BODY_DEPTH } from '../interview-api.tuning.js';

/** Whether `value` nests objects or arrays more than `limit` levels deep; a stack, not recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const item of Object.values(next.value)) pending.push({ value: item, depth });
  }
  return false;
}

/**
 * Refuses a body nested deeper than MAX_BODY_DEPTH before anything walks it recursively (a few
 * kilobytes of brackets would overflow class-transformer's stack and the fingerprint's: a 500).
 */
export function checkBodyDepth(body: unknown): void {
  if (nestedDeeperThan(body, MAX_BODY_DEPTH)) {
    throw new ParameterInvalidError(
      'body',
      `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`,
    );
  }
}
