import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import type { Response } from 'supertest';
import type { ReceivedRequest } from './receiver.js';

/** A JSON pointer's escaping of one token. */
function token(text: string): string {
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Checks live answers, and webhooks as a receiver gets them, against a document's schemas with
 * ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1's), references between its schemas resolved.
 */
export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly document: OpenAPIObject;

  constructor(document: OpenAPIObject) {
    this.document = document;
    // Not strict: the document's schemas carry OpenAPI's own keywords (`example`) beside JSON Schema's.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    // A CommonJS module: its plugin is its `default` export whichever way it is imported.
    addFormats.default(this.ajv);
    this.ajv.addSchema({ ...document, $id: 'openapi' });
  }

  /**
   * What is wrong with `res` as the answer of `METHOD /path` (the document's path, `{param}`s and
   * all): an undocumented status, or a body its schema refuses; null when it is as documented.
   */
  problem(route: string, res: Response): string | null {
    const [method, path] = route.split(' ');
    const operation = this.document.paths[path]?.[method.toLowerCase() as 'get'];
    if (operation === undefined) return `${route} is not documented`;
    const status = String(res.status);
    if (!(status in operation.responses)) return `${route} answered ${status}, which it does not document`;
    const pointer = `openapi#/paths/${token(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
    const validate = this.ajv.compile<unknown>({ $ref: pointer });
    if (validate(res.body)) return null;
    return `${route} ${status}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body)}`;
  }

  /**
   * What is wrong with a received webhook as the document's webhook of its event type describes it:
   * a type it does not list, a required header missing or malformed, or a body its schema refuses.
   */
  webhookProblem(received: ReceivedRequest): string | null {
    const body: unknown = JSON.parse(received.body);
    const { type } = body as { type: string };
    const operation = this.document.webhooks?.[type]?.post;
    if (operation === undefined) return `no webhook is documented for ${type}`;
    if (received.method !== 'POST') return `${type} came as ${received.method}`;
    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      const value = received.headers[parameter.name];
      if (value === undefined) {
        if (parameter.required) return `${type} came without its ${parameter.name} header`;
        continue;
      }
      const validHeader = this.ajv.compile<unknown>(parameter.schema ?? {});
      if (!validHeader(value)) return `${type}'s ${parameter.name} header is ${String(value)}`;
    }
    const pointer = `openapi#/webhooks/${token(type)}/post/requestBody/content/application~1json/schema`;
    const validBody = this.ajv.compile<unknown>({ $ref: pointer });
    if (validBody(body)) return null;
    return `${type}: ${this.ajv.errorsText(validBody.errors)} in ${received.body}`;
  }
}
