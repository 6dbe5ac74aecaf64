import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Response } from 'supertest';

/** A JSON pointer's escaping of one token. */
function token(text: string): string {
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Checks live answers against a document's response schemas with ajv's JSON Schema 2020-12
 * dialect (OpenAPI 3.1's), references between the document's schemas resolved.
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
    const validate = this.ajv.compile({ $ref: pointer });
    if (validate(res.body)) return null;
    return `${route} ${status}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(res.body)}`;
  }
}
