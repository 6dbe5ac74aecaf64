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
