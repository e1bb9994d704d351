import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECENT_STATS_MS, withRecentStats } from '../../src/modules/tasks/recent-stats.ts';
import type { AgentTaskStats } from '../../src/modules/tasks/store.ts';
import { TestClock } from '../helpers/app.ts';

const history = (completed: number): AgentTaskStats => ({ ratings: 1, ratingSum: 4, completed, meanSeconds: 2 });

describe("routing's recent agent history", () => {
  it('reads each agent once per period, remembers agents without history, and reads again after it', async () => {
    const clock = new TestClock();
    const stored = new Map([['a', history(1)]]);
    const reads: string[][] = [];
    const statsFor = withRecentStats(async (ids) => {
      reads.push(ids);
      return new Map(ids.flatMap((id) => (stored.has(id) ? [[id, stored.get(id)!] as const] : [])));
    }, clock);

    assert.deepEqual([...(await statsFor(['a', 'b']))], [['a', history(1)]]);
    stored.set('a', history(2));
    stored.set('b', history(1));
    clock.advance(RECENT_STATS_MS - 1);
    assert.deepEqual([...(await statsFor(['a', 'b']))], [['a', history(1)]], 'within the period the first reading holds, "no history" included');
    assert.deepEqual([...(await statsFor(['a', 'c']))], [['a', history(1)]], 'only the agent not seen yet is read');
    clock.advance(1);
    assert.deepEqual(
      [...(await statsFor(['a', 'b']))],
      [
        ['a', history(2)],
        ['b', history(1)],
      ],
    );
    assert.deepEqual(reads, [['a', 'b'], ['c'], ['a', 'b']]);
  });
});
