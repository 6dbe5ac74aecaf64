import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/** One route as `METHOD /path/{param}`, the form of an OpenAPI operation. */
export type RouteKey = string;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every route the app's Express router maps, as `METHOD /path/{param}`, in their order. */
export function mappedRoutes(app: INestApplication): RouteKey[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } };
  return express.router.stack.flatMap((layer: RouterLayer) =>
    layer.route
      ? Object.keys(layer.route.methods).map(
          (method) => `${method.toUpperCase()} ${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`,
        )
      : [],
  );
}

/** Every operation of a document's `paths` as `METHOD /path`. */
export function documentedRoutes(document: OpenAPIObject): RouteKey[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/**
 * Fails unless swagger-parser finds `document` a valid OpenAPI document of its version (3.1: the
 * 2020-12 JSON Schema dialect), naming what is wrong.
 */
export async function expectValidOpenApi(document: OpenAPIObject): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const validator = new URL('./validate-openapi.mjs', import.meta.url);
  try {
    const outcome = await promisify(execFile)(process.execPath, [validator.pathname, file]).then(
      () => 'valid',
      (error: { stderr?: string }) => `invalid: ${error.stderr ?? String(error)}`,
    );
    expect(outcome).toBe('valid');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
