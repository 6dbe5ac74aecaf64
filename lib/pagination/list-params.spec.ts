import { ParameterInvalidError } from '../errors/api-error.js';
import { parseListParams } from './list-params.js';

/** The param and message `query` is refused with. */
function refusal(query: object, filters: string[] = []): { param: string | undefined; message: string } {
  try {
    parseListParams(query, filters);
  } catch (error) {
    if (error instanceof ParameterInvalidError) return { param: error.param, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('parseListParams given what a host transforming pipe made of the query', () => {
  it('takes a number limit and Date bounds as the text forms of them', () => {
    const gte = new Date('2026-01-02T03:04:05.678Z');
    const lt = new Date('2026-02-01T00:00:00.000Z');
    expect(parseListParams({ limit: 7, created_gte: gte, created_lt: lt })).toEqual(
      parseListParams({ limit: '7', created_gte: gte.toISOString(), created_lt: lt.toISOString() }),
    );
  });

  it.each([0, 101, 1.5, NaN, Infinity, -1, true])('refuses limit %p as it refuses the text', (limit) => {
    expect(refusal({ limit })).toEqual(refusal({ limit: String(limit) }));
    expect(refusal({ limit })).toEqual({
      param: 'limit',
      message: 'limit must be an integer between 1 and 100.',
    });
  });

  it.each([new Date(NaN), new Date(Date.UTC(10000, 0, 1)), new Date(Date.UTC(-1, 0, 1)), 5])(
    'refuses created_gte %p as it refuses a text that is no timestamp',
    (created_gte) => {
      expect(refusal({ created_gte })).toEqual(refusal({ created_gte: 'soon' }));
    },
  );

  it('refuses a repeated parameter, transformed or not', () => {
    expect(refusal({ limit: [1, 2] })).toEqual(refusal({ limit: ['1', '2'] }));
    expect(refusal({ created_lt: [new Date(0)] }).param).toBe('created_lt');
    expect(refusal({ score: [1, 2] }, ['score']).param).toBe('score');
  });

  it("gives a host's transformed filters as their text, and refuses a Date that is no instant", () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    expect(
      parseListParams({ score: 4, active: false, since: at }, ['score', 'active', 'since']).filters,
    ).toEqual({
      score: '4',
      active: 'false',
      since: '2026-03-04T05:06:07.089Z',
    });
    expect(refusal({ since: new Date(NaN) }, ['since'])).toEqual({
      param: 'since',
      message: 'since must be a valid date.',
    });
  });

  it("counts a DTO's property left undefined as not given, and refuses any other unknown one", () => {
    expect(parseListParams({ limit: undefined, other: undefined })).toMatchObject({ limit: 25 });
    expect(refusal({ other: 1 }).param).toBe('other');
  });

  it('refuses a cursor that is not text', () => {
    expect(refusal({ cursor: 5 })).toEqual({
      param: 'cursor',
      message: 'cursor must be given once, as a string.',
    });
  });
});
