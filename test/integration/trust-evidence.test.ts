/**
 * The maintained trust sums and list counts (migrations 0011 to 0013) against the aggregate they
 * replace, computed from every stored receipt: after inserts (duplicates included), as receipts
 * expire, around sweeps that stop at a batch limit in the middle of receipts that expire at the same
 * time, and with inserts and sweeps running at once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import type { Db } from '../../src/db/database.ts';
import { newTimeOrderedId } from '../../src/lib/ids.ts';
import { createReceiptsStore, type NewReceiptRow, type ReceiptsStore } from '../../src/modules/receipts/store.ts';
import { provisionalAgentRow, seededRandom } from '../../bench/lib.ts';
import { openTestDatabase } from '../helpers/app.ts';

type TestDatabase = Awaited<ReturnType<typeof openTestDatabase>>;

const START = Date.parse('2026-11-21T12:00:00.000Z');
const MINUTE = 60_000;
const SUBJECTS = ['ed25519:subject-a', 'ed25519:subject-b', 'ed25519:subject-c'];
const ISSUERS = ['ed25519:issuer-1', 'ed25519:issuer-2', 'ed25519:unregistered', ...SUBJECTS.slice(0, 1)];
/** Keys some agent registered: evidence from the others weighs nothing and is never read. */
const REGISTERED = ['ed25519:issuer-1', 'ed25519:issuer-2', ...SUBJECTS];

async function registerKeys(db: Db) {
  const now = new Date(START).toISOString();
  await db
    .insertInto('agents')
    .values(REGISTERED.map((pubkey, i) => provisionalAgentRow(`agent-${i}`, `agent-${i}`, pubkey, now)))
    .execute();
}
const CLASSES = ['code.review', 'translate'];
const KINDS = ['offer', 'decision', 'outcome'] as const;
const OUTCOMES = [1, 0.5, 0, null];

type Random = () => number;
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

/** A receipt row as the service stores it, drawn from a small world so that keys repeat. */
function randomRow(random: Random, now: number): NewReceiptRow {
  const kind = pick(random, KINDS);
  // Few distinct expiry times, so several receipts expire at once (ties at a sweep's limit).
  const expiry = random() < 0.3 ? null : new Date(now + (1 + Math.floor(random() * 6)) * 5 * MINUTE).toISOString();
  return {
    id: newTimeOrderedId(),
    receipt_id: randomUUID(),
    correlation_id: randomUUID(),
    kind,
    task_class: pick(random, CLASSES),
    issuer_agent: pick(random, ['first', 'second']),
    issuer_pubkey: pick(random, ISSUERS),
    subject_agent: 'subject',
    subject_pubkey: pick(random, SUBJECTS),
    issued_at: new Date(now).toISOString(),
    expires_at: expiry,
    signature_verified: random() < 0.8 ? 1 : 0,
    outcome_value: kind === 'outcome' ? pick(random, OUTCOMES) : null,
    envelope: '{}',
    received_at: new Date(now).toISOString(),
  };
}

/** What the sums replaced: every verified, unexpired outcome of a registered key about another key, aggregated on read. */
async function aggregateFromReceipts(db: Db, now: string) {
  const rows = await db
    .selectFrom('trust_receipts')
    .select((eb) => [
      'subject_pubkey',
      'task_class',
      'issuer_pubkey',
      'issuer_agent',
      eb.fn.countAll<number | string>().as('receipts'),
      eb.fn.sum<number | string>('outcome_value').as('value_sum'),
    ])
    .where('kind', '=', 'outcome')
    .where('signature_verified', '=', 1)
    .where((eb) => eb('issuer_pubkey', '<>', eb.ref('subject_pubkey')))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where('issuer_pubkey', 'in', REGISTERED)
    .groupBy(['subject_pubkey', 'task_class', 'issuer_pubkey', 'issuer_agent'])
    .execute();
  return sorted(
    rows.map((row) => ({
      subject: row.subject_pubkey,
      taskClass: row.task_class,
      issuerPubkey: row.issuer_pubkey,
      issuerAgent: row.issuer_agent,
      receipts: Number(row.receipts),
      valueSum: Number(row.value_sum ?? 0),
    })),
  );
}

async function evidenceFromSums(store: ReceiptsStore, now: string) {
  const bySubject = await store.evidenceAbout(SUBJECTS, now);
  return sorted([...bySubject].flatMap(([subject, items]) => items.map((item) => ({ subject, ...item }))));
}

const sorted = <T extends { subject: string; taskClass: string; issuerPubkey: string; issuerAgent: string }>(rows: T[]) =>
  rows.sort((a, b) =>
    `${a.subject} ${a.taskClass} ${a.issuerPubkey} ${a.issuerAgent}`.localeCompare(`${b.subject} ${b.taskClass} ${b.issuerPubkey} ${b.issuerAgent}`),
  );

/** Every filter a list by subject can carry: its total from the counts must equal counting the rows. */
async function assertTotalsMatchRows(db: Db, store: ReceiptsStore) {
  for (const subjectPubkey of SUBJECTS) {
    for (const taskClass of [undefined, ...CLASSES]) {
      for (const kind of [undefined, ...KINDS]) {
        const filter = { subjectPubkey, ...(taskClass ? { taskClass } : {}), ...(kind ? { kind } : {}) };
        let query = db.selectFrom('trust_receipts').where('subject_pubkey', '=', subjectPubkey);
        if (taskClass) query = query.where('task_class', '=', taskClass);
        if (kind) query = query.where('kind', '=', kind);
        const { count } = await query.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
        assert.equal((await store.list(filter, 1, 0)).total, Number(count), JSON.stringify(filter));
      }
    }
  }
}

describe('maintained trust sums and list counts', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let store: ReceiptsStore;

  before(async () => {
    database = await openTestDatabase();
    await database.migrate();
    const { handle } = database;
    await registerKeys(handle.db);
    store = createReceiptsStore(handle.db, { dialect: handle.dialect, sqliteFile: handle.sqliteFile });
  });
  after(async () => {
    await store.close();
    await database.close();
  });

  it('equal the aggregate over every stored receipt through inserts, duplicates, expiry and partial sweeps', async () => {
    const random = seededRandom(20261122);
    const { db } = database.handle;
    let now = START;
    const stored: NewReceiptRow[] = [];
    for (let step = 0; step < 40; step++) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 12) }, () => randomRow(random, now));
      // A receipt sent again under its receiptId is answered from storage and counted once.
      if (stored.length > 0 && random() < 0.5) rows.push({ ...pick(random, stored), id: newTimeOrderedId() });
      const outcomes = await Promise.all(rows.map((row) => store.insert(row)));
      for (const [i, outcome] of outcomes.entries()) if (outcome.inserted) stored.push(rows[i]!);

      now += Math.floor(random() * 4 * MINUTE);
      const iso = new Date(now).toISOString();
      if (random() < 0.4) {
        // A small batch, so a pass often ends among receipts that expire at the same time.
        const { more } = await store.sweepExpiredEvidence(iso, 1 + Math.floor(random() * 4));
        if (more && random() < 0.5) await store.sweepExpiredEvidence(iso, 1000);
      }
      assert.deepEqual(await evidenceFromSums(store, iso), await aggregateFromReceipts(db, iso), `step ${step}`);
    }
    assert.ok(stored.length > 150, 'the run stored a useful number of receipts');
    await assertTotalsMatchRows(db, store);

    // Once everything with an expiry has expired and been swept, only receipts without one remain.
    now += 365 * 24 * 60 * MINUTE;
    const late = new Date(now).toISOString();
    while ((await store.sweepExpiredEvidence(late, 7)).more);
    assert.deepEqual(await evidenceFromSums(store, late), await aggregateFromReceipts(db, late));
    // A node whose clock is behind the watermark sweeps nothing and leaves the watermark where it is.
    const { more } = await store.sweepExpiredEvidence(new Date(START).toISOString(), 1000);
    assert.equal(more, false);
    assert.deepEqual(await evidenceFromSums(store, late), await aggregateFromReceipts(db, late));
    const { remaining } = await db
      .selectFrom('trust_evidence')
      .select((eb) => eb.fn.sum<number | string>('receipts').as('remaining'))
      .executeTakeFirstOrThrow();
    // Sums are kept for unregistered issuers too: an issuer may register after its receipts arrive.
    assert.equal(
      Number(remaining),
      stored.filter((row) => row.kind === 'outcome' && row.signature_verified === 1 && row.issuer_pubkey !== row.subject_pubkey && row.expires_at === null)
        .length,
    );
  });
});

/** A database of its own, migrated through `through` (all migrations without it), closed after `use`. */
async function withDatabase(use: (database: TestDatabase) => Promise<void>, through?: string) {
  const database = await openTestDatabase();
  try {
    await database.migrate(through);
    await use(database);
  } finally {
    await database.close();
  }
}

/** A store on a database migrated through the latest migration, the keys of REGISTERED registered. */
async function withStore(database: TestDatabase, use: (store: ReceiptsStore) => Promise<void>) {
  await database.migrate();
  const { db, dialect, sqliteFile } = database.handle;
  await registerKeys(db);
  const store = createReceiptsStore(db, { dialect, sqliteFile });
  try {
    await use(store);
  } finally {
    await store.close();
  }
}

describe('migration 0011 on a database that already holds receipts', () => {
  it('fills the sums and counts from the receipts stored before it', () =>
    withDatabase(async (database) => {
      const { db } = database.handle;
      const random = seededRandom(7);
      const rows = Array.from({ length: 300 }, () => randomRow(random, START - 15 * MINUTE));
      // Typed for after the migration; the table itself is the same before it.
      await db.insertInto('trust_receipts').values(rows).execute();
      await withStore(database, async (store) => {
        for (const minutes of [0, 20, 60]) {
          const now = new Date(START + minutes * MINUTE).toISOString();
          assert.deepEqual(await evidenceFromSums(store, now), await aggregateFromReceipts(db, now));
        }
        await assertTotalsMatchRows(db, store);
      });
    }, '0010_receipt_kind_in_subject_indexes'));
});

describe('migration 0013 on a database swept to a time', () => {
  it('takes the time for every receipt expiring at it, as the sums did', () =>
    withDatabase(async (database) => {
      const { db } = database.handle;
      const random = seededRandom(13);
      const watermark = new Date(START + 10 * MINUTE).toISOString();
      // Many receipts expire exactly at the watermark: before migration 0013 a sweep to that time
      // took all of them out of the sums, and inserts after it never added one.
      const rows = Array.from({ length: 200 }, () => randomRow(random, START)).map((row, i) => (i % 2 === 0 ? { ...row, expires_at: watermark } : row));
      await db.insertInto('trust_receipts').values(rows).execute();
      await sql`UPDATE trust_evidence_sweep SET expired_through = ${watermark}`.execute(db);
      // The sums as migration 0011's triggers and sweep kept them: nothing at or before the watermark.
      await sql`INSERT INTO trust_evidence (subject_pubkey, task_class, issuer_pubkey, issuer_agent, receipts, value_sum)
        SELECT subject_pubkey, task_class, issuer_pubkey, issuer_agent, count(*), coalesce(sum(outcome_value), 0) FROM trust_receipts
        WHERE kind = 'outcome' AND signature_verified = 1 AND issuer_pubkey <> subject_pubkey AND (expires_at IS NULL OR expires_at > ${watermark})
        GROUP BY subject_pubkey, task_class, issuer_pubkey, issuer_agent`.execute(db);
      await withStore(database, async (store) => {
        for (const minutes of [10, 20, 60]) {
          const now = new Date(START + minutes * MINUTE).toISOString();
          assert.deepEqual(await evidenceFromSums(store, now), await aggregateFromReceipts(db, now), `${minutes} minutes`);
          await store.sweepExpiredEvidence(now, 1000);
          assert.deepEqual(await evidenceFromSums(store, now), await aggregateFromReceipts(db, now), `${minutes} minutes, swept`);
        }
      });
    }, '0012_receipt_sums_by_writers'));
});

describe('the sweep', () => {
  it('takes at most its limit of receipts a pass, even when more expire at the same instant', () =>
    withDatabase((database) =>
      withStore(database, async (store) => {
        const { db } = database.handle;
        const random = seededRandom(99);
        const instant = new Date(START + 5 * MINUTE).toISOString();
        const rows = Array.from({ length: 30 }, () => ({
          ...randomRow(random, START),
          kind: 'outcome' as const,
          signature_verified: 1 as const,
          issuer_pubkey: 'ed25519:issuer-1',
          outcome_value: 1,
          expires_at: instant,
        }));
        await Promise.all(rows.map((row) => store.insert(row)));
        const summed = async () =>
          Number(
            (
              await db
                .selectFrom('trust_evidence')
                .select((eb) => eb.fn.sum<number | string>('receipts').as('n'))
                .executeTakeFirstOrThrow()
            ).n ?? 0,
          );
        assert.equal(await summed(), 30);

        const later = new Date(START + 6 * MINUTE).toISOString();
        await assert.rejects(store.sweepExpiredEvidence(later, 0), RangeError);
        const taken: number[] = [];
        for (let more = true; more;) {
          const before = await summed();
          more = (await store.sweepExpiredEvidence(later, 7)).more;
          taken.push(before - (await summed()));
          assert.deepEqual(await evidenceFromSums(store, later), await aggregateFromReceipts(db, later));
        }
        assert.deepEqual(taken.slice(0, 4), [7, 7, 7, 7]);
        assert.equal(
          taken.reduce((a, b) => a + b),
          30,
        );
        assert.equal(await summed(), 0);
      }),
    ));

  it('takes every receipt that expired out of the sums exactly once, whichever of insert and sweep commits first', () =>
    withDatabase((database) =>
      withStore(database, async (store) => {
        const { db } = database.handle;
        const random = seededRandom(20261125);
        const STEP = 10_000;
        let sweptTo = START;
        let inserting = true;
        // Each receipt expires just past where the sweeps are, so the next sweep moves the watermark
        // over it, often while the transaction inserting it is still open (PostgreSQL: another
        // connection). A receipt added to the sums after a sweep passed over it would stay for ever.
        const inserts = (async () => {
          try {
            for (let batch = 0; batch < 80; batch++) {
              const rows = Array.from({ length: 16 }, () => ({
                ...randomRow(random, START),
                kind: 'outcome' as const,
                signature_verified: 1 as const,
                outcome_value: 1,
                // A quarter never expire: what must be left in the sums at the end, not a receipt less.
                expires_at: random() < 0.25 ? null : new Date(sweptTo + 1 + Math.floor(random() * 2 * STEP)).toISOString(),
              }));
              await Promise.all(rows.map((row) => store.insert(row)));
            }
          } finally {
            inserting = false;
          }
        })();
        let sweeps = 0;
        while (inserting) {
          sweptTo += STEP;
          await store.sweepExpiredEvidence(new Date(sweptTo).toISOString(), 1000);
          sweeps++;
          // SQLite's sweep runs on this thread without I/O: a pause lets the insert worker's answers in.
          await setTimeout(1);
        }
        await inserts;
        assert.ok(sweeps > 20, `the sweeps ran among the inserts (${sweeps})`);

        const late = new Date(sweptTo + 60 * MINUTE).toISOString();
        while ((await store.sweepExpiredEvidence(late, 1000)).more);
        const expected = await aggregateFromReceipts(db, late);
        assert.ok(expected.length > 10, 'receipts without expiry are left to compare');
        assert.deepEqual(await evidenceFromSums(store, late), expected, 'every expired receipt taken out of the sums once');
      }),
    ));
});
