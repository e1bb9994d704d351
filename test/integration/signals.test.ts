import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createPostgresSignals, RESYNC_CHANNEL, type Signals } from '../../src/db/signals.ts';
import { dialectUnderTest, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, what: string, timeoutMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** On PostgreSQL a subscription is live once its LISTEN has run on the bus's connection, a moment after subscribe(). */
const listening = () => sleep(testDatabaseUrl ? 100 : 0);

async function currentSchema(app: TestApp): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(app.database.db);
  return rows[0]!.schema;
}

describe('signals', () => {
  let app: TestApp;
  /** Another node on the same database: a second bus on PostgreSQL; on SQLite one process owns the file, so the same bus. */
  let otherNode: Signals;
  const opened: Signals[] = [];
  before(async () => {
    app = await startTestApp();
    if (testDatabaseUrl) {
      otherNode = await createPostgresSignals({ url: testDatabaseUrl, namespace: await currentSchema(app) });
      opened.push(otherNode);
    } else {
      otherNode = app.signals;
    }
  });
  after(async () => {
    for (const bus of opened) await bus.close();
    await app.close();
  });

  it('delivers to this node at once, exactly once, and not after unsubscribing', async () => {
    const heard: string[] = [];
    const stop = app.signals.subscribe('test.local', (payload) => heard.push(payload));
    const publishing = app.signals.publish('test.local', 'one');
    assert.deepEqual(heard, ['one'], 'heard before publish() settles');
    await publishing;
    // Long enough for the database to have echoed the signal back, which must not be heard again.
    await sleep(200);
    assert.deepEqual(heard, ['one']);
    stop();
    await app.signals.publish('test.local', 'two');
    await sleep(100);
    assert.deepEqual(heard, ['one']);
  });

  it('reaches another node on the same database, on the named channel only', async () => {
    const heard: string[] = [];
    const other: string[] = [];
    otherNode.subscribe('test.remote', (payload) => heard.push(payload));
    otherNode.subscribe('test.unrelated', (payload) => other.push(payload));
    await listening();
    const big = 'x'.repeat(7999);
    await app.signals.publish('test.remote', 'revoked:123');
    await app.signals.publish('test.remote', big);
    await eventually(() => heard.length === 2, 'both signals heard by the other node');
    assert.deepEqual(heard, ['revoked:123', big]);
    assert.deepEqual(other, []);
  });

  it('keeps delivering to other listeners when one throws', async () => {
    const heard: string[] = [];
    app.signals.subscribe('test.throws', () => {
      throw new Error('listener bug');
    });
    app.signals.subscribe('test.throws', (payload) => heard.push(payload));
    await app.signals.publish('test.throws', 'still heard');
    assert.deepEqual(heard, ['still heard']);
  });

  it('refuses bad channel names and payloads of 8000 bytes or more', async () => {
    for (const channel of ['', 'has space', 'x'.repeat(41), 'semi;colon', 'quote"d']) {
      await assert.rejects(app.signals.publish(channel, 'x'), /invalid signal channel/);
      assert.throws(() => app.signals.subscribe(channel, () => {}), /invalid signal channel/);
    }
    await assert.rejects(app.signals.publish('test.big', 'x'.repeat(8000)), /payload over 7999 bytes/);
    await assert.rejects(app.signals.publish('test.big', 'é'.repeat(4000)), /payload over 7999 bytes/);
  });

  if (dialectUnderTest === 'postgres') {
    it('keeps apps in different schemas of one database apart', async () => {
      const stranger = await createPostgresSignals({ url: testDatabaseUrl!, namespace: `${await currentSchema(app)}_other` });
      opened.push(stranger);
      const heardByStranger: string[] = [];
      const heardHere: string[] = [];
      stranger.subscribe('test.apart', (payload) => heardByStranger.push(payload));
      otherNode.subscribe('test.apart', (payload) => heardHere.push(payload));
      await listening();
      await app.signals.publish('test.apart', 'mine');
      await eventually(() => heardHere.length === 1, 'signal heard in the same schema');
      await sleep(100);
      assert.deepEqual(heardByStranger, []);
    });

    it('reconnects after losing its connection, listens again and tells RESYNC listeners', async () => {
      const applicationName = `signals-test-${randomBytes(4).toString('hex')}`;
      const namespace = await currentSchema(app);
      const bus = await createPostgresSignals({ url: testDatabaseUrl!, namespace, applicationName, reconnectDelayMs: { min: 20, max: 100 } });
      opened.push(bus);
      let resyncs = 0;
      const heard: string[] = [];
      bus.subscribe(RESYNC_CHANNEL, () => resyncs++);
      bus.subscribe('test.reconnect', (payload) => heard.push(payload));

      const admin = new pg.Client({ connectionString: testDatabaseUrl! });
      await admin.connect();
      try {
        const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
        assert.equal(killed.rowCount, 1);
      } finally {
        await admin.end();
      }
      await eventually(() => resyncs === 2, 'RESYNC heard on loss and on return', 3000);
      await otherNode.publish('test.reconnect', 'after');
      await eventually(() => heard.length === 1, 'signal heard after reconnecting');
      assert.deepEqual(heard, ['after']);
    });

    it('closes without reporting the LISTEN and UNLISTEN still queued on its connection as errors', async () => {
      const errors: unknown[] = [];
      const bus = await createPostgresSignals({ url: testDatabaseUrl!, namespace: await currentSchema(app), onError: (error) => errors.push(error) });
      // As at shutdown: caches unsubscribe, then the bus closes, in one turn.
      const unsubscribes = ['test.close.a', 'test.close.b', 'test.close.c'].map((channel) => bus.subscribe(channel, () => {}));
      for (const unsubscribe of unsubscribes) unsubscribe();
      await bus.close();
      await sleep(50);
      assert.deepEqual(errors, []);
    });
  }
});
