import { Exclude, Expose, Transform } from 'class-transformer';
import type { ResourceDefinition } from '../interview-api.options.js';
import { toResourceView } from './resource-view.js';

class Invitation {
  id = 7;
  publicId = 'inv_public_7';
  object = 'row';
  orgId = 'acct_1';
  createdAt = new Date('2026-11-23T10:00:00.000Z');
}

const definition: ResourceDefinition = {
  path: 'invitations',
  entity: Invitation,
  object: 'invitation',
  scope: 'results:read',
  columns: { id: 'publicId', accountId: 'orgId' },
};

describe('toResourceView', () => {
  it('answers the public id and object first, over fields of the row with those names', () => {
    const view = toResourceView(definition, new Invitation());
    expect(view).toEqual({
      id: 'inv_public_7',
      object: 'invitation',
      org_id: 'acct_1',
      created_at: '2026-11-23T10:00:00.000Z',
    });
    expect(Object.keys(view).slice(0, 2)).toEqual(['id', 'object']);
  });

  it('keeps the public id and object over what a toJSON returns', () => {
    const view = toResourceView(
      {
        ...definition,
        toJSON: (row) => ({ id: (row as Invitation).id, object: 'x', org: (row as Invitation).orgId }),
      },
      new Invitation(),
    );
    expect(view).toEqual({ id: 'inv_public_7', object: 'invitation', org: 'acct_1' });
  });
});

class Review {
  id = 'rev_1';
  verdict = 'hire';
  @Exclude()
  interviewerNotes = 'nervous at first';
  @Exclude({ toPlainOnly: true })
  salaryBand = 'B2';
  // Left out of what the host reads from a request body only: the plain object keeps it.
  @Exclude({ toClassOnly: true })
  reviewerName = 'Ada';
}

@Exclude()
class Candidate {
  id = 'cand_1';
  @Expose()
  name = 'Grace';
  email = 'grace@example.com';
}

/** Counts the plain objects class-transformer makes of its rows, through a transform. */
class Counted {
  static plainObjects = 0;
  id = 'cnt_1';
  @Transform(({ value }) => {
    Counted.plainObjects += 1;
    return value;
  })
  stage = 'onsite';
  @Exclude()
  secret = 's';
}

const resource = (entity: ResourceDefinition['entity']): ResourceDefinition => ({
  path: 'things',
  entity,
  object: 'thing',
  scope: 'results:read',
});

describe('toResourceView of an entity with class-transformer decorators', () => {
  it('leaves out what @Exclude() leaves out of the plain object', () => {
    expect(toResourceView(resource(Review), new Review())).toEqual({
      id: 'rev_1',
      object: 'thing',
      verdict: 'hire',
      reviewer_name: 'Ada',
    });
  });

  it('keeps only the @Expose()d properties of a class-level @Exclude(), with the id and object', () => {
    expect(toResourceView(resource(Candidate), new Candidate())).toEqual({
      id: 'cand_1',
      object: 'thing',
      name: 'Grace',
    });
  });

  it('asks class-transformer once per class, not once per row', () => {
    const definition = resource(Counted);
    const views = [new Counted(), new Counted(), new Counted()].map((row) => toResourceView(definition, row));
    expect(views).toEqual(Array(3).fill({ id: 'cnt_1', object: 'thing', stage: 'onsite' }));
    expect(Counted.plainObjects).toBe(1);
  });

  it('leaves the whole shape to a toJSON, private fields included if it returns them', () => {
    const view = toResourceView(
      { ...resource(Review), toJSON: (row) => ({ notes: (row as Review).interviewerNotes }) },
      new Review(),
    );
    expect(view).toEqual({ id: 'rev_1', object: 'thing', notes: 'nervous at first' });
  });
});
