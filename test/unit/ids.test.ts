import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUuid, newTimeOrderedId } from '../../src/lib/ids.ts';

describe('newTimeOrderedId', () => {
  it('is a version 7 UUID carrying its millisecond timestamp', () => {
    const id = newTimeOrderedId(Date.UTC(2026, 10, 21, 12, 0, 0, 5));
    assert.ok(isUuid(id), id);
    assert.equal(id[14], '7');
    assert.match(id[19]!, /[89ab]/);
    assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), Date.UTC(2026, 10, 21, 12, 0, 0, 5));
  });

  it('sorts as text in the order of its timestamps', () => {
    const times = [1, 2, 255, 256, 65_536, Date.UTC(2026, 0, 1), Date.UTC(2100, 0, 1)];
    const ids = times.map((t) => newTimeOrderedId(t));
    assert.deepEqual([...ids].sort(), ids);
    assert.notEqual(newTimeOrderedId(7), newTimeOrderedId(7));
  });
});
