import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const COMMITTED = new URL('../openapi.json', import.meta.url);

/** A client's use of the generated types: requests, answers, errors, a resource and a webhook. */
const CLIENT = `
import type { components, paths, webhooks } from './interview-api.js';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

export const create: Json<NonNullable<paths['/v1/webhook_endpoints']['post']['requestBody']>> = {
  url: 'https://hooks.example.com/interviews',
  enabled_events: ['result.ready'],
  description: null,
};
type Created = Json<paths['/v1/webhook_endpoints']['post']['responses'][201]>;
export const secretOf = (endpoint: Created): string => endpoint.secret;
export const query: paths['/v1/events']['get']['parameters']['query'] = { limit: 10, type: 'result.*' };
type Page = Json<paths['/v1/webhook_endpoints/{id}/deliveries']['get']['responses'][200]>;
export const statuses = (page: Page): ('pending' | 'succeeded' | 'failed')[] => page.data.map((d) => d.status);
export const attempts = (
  delivery: components['schemas']['WebhookDeliveryWithAttempts'],
): (number | null)[] => delivery.attempts.map((attempt) => attempt.response_status);
type Missing = Json<paths['/v1/events/{id}']['get']['responses'][404]>;
export const code = (error: Missing): 'resource_missing' => error.error.code;
type Session = Json<paths['/v1/sessions/{id}']['get']['responses'][200]>;
export const completedAt = (session: Session): string | null => session.completed_at;
type Ready = Json<NonNullable<webhooks['result.ready']['post']['requestBody']>>;
export const readyType = (event: Ready): 'result.ready' => event.type;
`;

/** Compiles `files` (name to source) in a directory of their own; answers tsc's diagnostics. */
function compile(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
  try {
    for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a TypeScript client generated from openapi.json', () => {
  let types: string;

  beforeAll(async () => {
    types = astToString(await openapiTS(COMMITTED));
  });

  it('compiles with a client that uses its requests, answers, errors, resources and webhooks', () => {
    expect(compile({ 'interview-api.ts': types, 'client.ts': CLIENT })).toEqual([]);
  });

  it('refuses a client that sends what the API does not take', () => {
    const wrong = CLIENT.replace("enabled_events: ['result.ready'],", 'enabled_events: "result.ready",');
    expect(compile({ 'interview-api.ts': types, 'client.ts': wrong })).toEqual([
      expect.stringContaining("Type 'string' is not assignable to type 'string[]'"),
    ]);
  });
});
