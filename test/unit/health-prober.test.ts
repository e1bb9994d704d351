/**
 * The prober's stop: probes a node claimed but had not started when it stopped go back to the
 * queue at once, so the other nodes take them over without waiting for the lease to run out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { createProber, type ProberOptions } from '../../src/modules/health/index.ts';
import { waitFor } from '../helpers/wait.ts';

describe('health prober', () => {
  it('hands back the probes it claimed while stopping, due at once', async () => {
    let answerClaim: (rows: { id: string }[]) => void = () => {};
    let claims = 0;
    const rescheduled: { id: string; runAt: string }[] = [];
    const store = {
      enrol: async () => {},
      pruneHours: async () => {},
      claim: () => {
        claims++;
        return new Promise<{ id: string }[]>((resolve) => (answerClaim = resolve));
      },
      reschedule: async (id: string, runAt: string) => void rescheduled.push({ id, runAt }),
      forget: async () => {},
    };
    const prober = createProber({
      store: store as unknown as ProberOptions['store'],
      measurements: { record: () => {} } as unknown as ProberOptions['measurements'],
      outbound: { send: () => assert.fail('no probe may start after the stop') } as unknown as ProberOptions['outbound'],
      clock: systemClock,
      targetIds: async () => [],
      findTarget: async () => assert.fail('no probe may start after the stop'),
      signWebhook: () => ({}),
      intervalMs: 60_000,
      hostGapMs: 100,
      timeoutMs: 15_000,
      scheduledEnrol: async () => false,
      onError: (error) => assert.fail(String(error)),
    });
    prober.start();
    await waitFor(
      'a claim under way',
      () => claims,
      (count) => count === 1,
    );
    const stopping = prober.stop();
    const before = Date.now();
    answerClaim([{ id: 'agent-1' }, { id: 'agent-2' }]);
    await stopping;
    assert.deepEqual(
      rescheduled.map((row) => row.id),
      ['agent-1', 'agent-2'],
    );
    for (const row of rescheduled) assert.ok(Date.parse(row.runAt) <= Date.now() && Date.parse(row.runAt) >= before - 1_000, `due now: ${row.runAt}`);
    assert.equal(prober.probesMade(), 0);
  });
});
