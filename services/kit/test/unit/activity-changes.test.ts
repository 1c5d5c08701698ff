/** What an activity entry says changed: the differing fields only, secrets masked at any depth. */
import { describeChanges, MASKED_VALUE } from '../../src/activity-log/activity-changes';

describe('describeChanges', () => {
  it('lists only the fields that differ, with both values, without bookkeeping', () => {
    expect(
      describeChanges(
        { id: 7, username: 'ann', role_id: 3, is_active: true, updated_at: 'a' },
        { id: 7, username: 'anne', role_id: 3, is_active: false, updated_at: 'b' },
      ),
    ).toEqual([
      { field: 'username', before: 'ann', after: 'anne' },
      { field: 'is_active', before: true, after: false },
    ]);
  });

  it('records a creation and a deletion as changes from and to nothing', () => {
    expect(describeChanges(undefined, { name: 'r', level: 5 })).toEqual([
      { field: 'name', before: null, after: 'r' },
      { field: 'level', before: null, after: 5 },
    ]);
    expect(describeChanges({ name: 'r' }, null)).toEqual([
      { field: 'name', before: 'r', after: null },
    ]);
  });

  it('masks secrets by their name, nested ones included, and still says they changed', () => {
    const changes = describeChanges(
      { password_hash: 'scrypt$1', settings: { api_key: 'sk-1', model: 'a' } },
      { password_hash: 'scrypt$2', settings: { api_key: 'sk-2', model: 'b' } },
    );
    expect(changes).toEqual([
      { field: 'password_hash', before: MASKED_VALUE, after: MASKED_VALUE },
      {
        field: 'settings',
        before: { api_key: MASKED_VALUE, model: 'a' },
        after: { api_key: MASKED_VALUE, model: 'b' },
      },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/sk-1|sk-2|scrypt/);
  });

  it('compares objects and dates by value', () => {
    expect(
      describeChanges(
        { tags: ['a'], at: new Date(5), meta: { x: 1 } },
        { tags: ['a'], at: new Date(5), meta: { x: 1 } },
      ),
    ).toEqual([]);
  });
});
