import request, { type Response } from 'supertest';
import type { TestHost } from './host-app.js';

/** ISO 8601 UTC with milliseconds, the one timestamp format of every JSON field. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A /v1 client bound to one API key, so that tests read as the requests they make. */
export interface ApiClient {
  get(path: string, query?: Record<string, string | number>): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
  patch(path: string, body: unknown): Promise<Response>;
  delete(path: string): Promise<Response>;
}

export function apiClient(host: Pick<TestHost, 'app'>, key: string): ApiClient {
  const server = (): ReturnType<TestHost['app']['getHttpServer']> => host.app.getHttpServer();
  const auth = `Bearer ${key}`;
  return {
    get: (path, query = {}) =>
      request(server())
        .get(path)
        .query(query as Record<string, string>)
        .set('Authorization', auth),
    post: (path, body) => {
      const req = request(server()).post(path).set('Authorization', auth);
      return body === undefined ? req : req.send(body as object);
    },
    patch: (path, body) =>
      request(server())
        .patch(path)
        .set('Authorization', auth)
        .send(body as object),
    delete: (path) => request(server()).delete(path).set('Authorization', auth),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Walks a list by next_cursor until has_more is false; answers every page. */
export async function walkPages<T>(
  client: ApiClient,
  path: string,
  query: Record<string, string | number>,
  onPage?: (page: number) => Promise<void>,
): Promise<{ data: T[]; has_more: boolean; next_cursor: string | null }[]> {
  const pages: { data: T[]; has_more: boolean; next_cursor: string | null }[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const res = await client.get(path, cursor === null ? query : { ...query, cursor });
    expect(res.status).toBe(200);
    pages.push(res.body);
    if (onPage) await onPage(page);
    if (!res.body.has_more) return pages;
    cursor = res.body.next_cursor;
    expect(typeof cursor).toBe('string');
  }
  throw new Error('the list never ended');
}
