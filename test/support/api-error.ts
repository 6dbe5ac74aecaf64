import type { Response } from 'supertest';

/** What an error body must look like: the module's envelope, nothing more. */
export function errorEnvelope(
  type: string,
  code: string,
  param?: string,
): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { type, code, message: expect.any(String) };
  if (param !== undefined) error.param = param;
  return { error };
}

/** 400 parameter_invalid naming `param`, in exactly the envelope. */
export function expectParameterInvalid(res: Response, param: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 400,
    body: errorEnvelope('invalid_request_error', 'parameter_invalid', param),
  });
}

/** 404 resource_missing, in exactly the envelope (`param` is allowed, e.g. `id`). */
export function expectResourceMissing(res: Response): void {
  expect(res.status).toBe(404);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error).toMatchObject({
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: expect.any(String),
  });
  expect(Object.keys(res.body.error).every((key) => ['type', 'code', 'message', 'param'].includes(key))).toBe(
    true,
  );
}

/** Nothing internal in a body: no stack frames, no exception names. */
export function expectNoInternals(body: unknown): void {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat \S+ \(|\bat \S+:\d+:\d+|\.(ts|js):\d+/);
  expect(text).not.toContain('Error:');
  expect(text).not.toMatch(/node_modules|\/work\//);
}
