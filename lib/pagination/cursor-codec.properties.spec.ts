import fc from 'fast-check';
import { CursorCodec, type CursorBinding, type CursorPosition } from './cursor-codec.js';

const codec = new CursorCodec('property-cursor-secret-0123456789abcdef');

const position: fc.Arbitrary<CursorPosition> = fc.record({
  createdAt: fc.string({ maxLength: 40 }),
  // Any characters a varchar(255) holds, however JSON writes them.
  id: fc.string({ unit: 'binary', maxLength: 255 }),
});
const binding: fc.Arbitrary<CursorBinding> = fc.record({
  list: fc.constantFrom('sessions', 'events', 'webhook_endpoints', 'deliveries'),
  accountId: fc.string({ unit: 'binary', minLength: 1, maxLength: 255 }),
  livemode: fc.boolean(),
  filters: fc.dictionary(
    fc.constantFrom('status', 'type', 'event_id', 'created_gte', 'created_lt'),
    fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  ),
});
/** Every character a cursor is made of: base64url plus the segment separator. */
const cursorCharacter = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.',
);

describe('CursorCodec, over generated positions and bindings', () => {
  it('gives back every position for the binding it was issued for', () => {
    fc.assert(
      fc.property(position, binding, (at, boundTo) => {
        expect(codec.decode(codec.encode(at, boundTo), boundTo)).toEqual(at);
      }),
    );
  });

  it('refuses a cursor with one character replaced, removed or inserted, anywhere', () => {
    fc.assert(
      fc.property(
        position,
        binding,
        fc.nat(),
        cursorCharacter,
        fc.constantFrom('replace', 'remove', 'insert'),
        (at, boundTo, index, character, edit) => {
          const cursor = codec.encode(at, boundTo);
          const i = index % cursor.length;
          fc.pre(edit !== 'replace' || cursor[i] !== character);
          const changed =
            edit === 'replace'
              ? cursor.slice(0, i) + character + cursor.slice(i + 1)
              : edit === 'remove'
                ? cursor.slice(0, i) + cursor.slice(i + 1)
                : cursor.slice(0, i) + character + cursor.slice(i);
          expect(codec.decode(changed, boundTo)).toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a cursor for any other list, account, mode or filters', () => {
    fc.assert(
      fc.property(position, binding, binding, (at, issuedFor, usedWith) => {
        const cursor = codec.encode(at, issuedFor);
        const sameFilters =
          JSON.stringify(
            Object.entries(issuedFor.filters)
              .filter(([, v]) => v !== undefined)
              .sort(),
          ) ===
          JSON.stringify(
            Object.entries(usedWith.filters)
              .filter(([, v]) => v !== undefined)
              .sort(),
          );
        const same =
          issuedFor.list === usedWith.list &&
          issuedFor.accountId === usedWith.accountId &&
          issuedFor.livemode === usedWith.livemode &&
          sameFilters;
        expect(codec.decode(cursor, usedWith)).toEqual(same ? at : null);
      }),
      { numRuns: 1000 },
    );
  });
});
