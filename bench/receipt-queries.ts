/**
 * Receipt queries at scale (issue 4: "indexed so a query stays fast with a million receipts").
 * BENCH_RECEIPTS (default 1,000,000) stored receipts are written straight into a fresh database in
 * bulk transactions, as the service stores them; then autocannon asks each query for
 * BENCH_SECONDS (default 5), first from one client (the latency of one request on an idle service),
 * then from 50 (throughput).
 *
 * The data: flows of offer, decision and outcome receipts (one correlation id each) about 20,000
 * subject keys, from 1,000 issuer keys, in 20 task classes, received over 30 days; 97% verified.
 * One hot subject holds a tenth of all receipts (100,000 of a million), every other subject about 45.
 * Half the issuers are registered (unclaimed) agents, so trust weighs their receipts; the other
 * half's receipts are stored and listed but weigh nothing, as a flood from throwaway keys would.
 *
 *   npx tsx bench/receipt-queries.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/receipt-queries.ts
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import type { TrustReceiptsTable } from '../src/modules/receipts/index.ts';
import { formatPublicKey, publicKeyFromSeed } from '../src/lib/ed25519.ts';
import { newTimeOrderedId } from '../src/lib/ids.ts';
import canonicalize from 'canonicalize';
import { insertReceipts } from '../src/modules/receipts/sums.ts';
import {
  benchDatabase,
  benchSeconds,
  machine,
  markdownTable,
  measureAll,
  problemsOf,
  provisionalAgentRow,
  seededRandom,
  startService,
  withCleanup,
  writeResult,
  type Target,
} from './lib.ts';

const RECEIPTS = Number(process.env.BENCH_RECEIPTS ?? 1_000_000);
const SUBJECTS = 20_000;
const ISSUERS = 1_000;
const CLASSES = Array.from({ length: 20 }, (_, i) => `bench.class_${i}.run`);
const HOT_SHARE = 0.1;
const DAYS = 30;
const CHUNK = 1_000;

const random = seededRandom(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const key = () => formatPublicKey(publicKeyFromSeed(randomBytes(32)));

interface Seeded {
  hotSubject: string;
  typicalSubject: string;
  hotClass: string;
  correlationId: string;
  /** Verified receipts: what the receipt log holds once the service has logged them. */
  verified: number;
  /** A verified receipt from the middle of the log, whose proof is asked for. */
  provenId: string;
}

/** Writes RECEIPTS rows, oldest first, and returns keys and ids worth asking about. */
async function seed(url: string): Promise<Seeded> {
  const database = openDatabase({ url });
  await database.migrate();
  const subjects = Array.from({ length: SUBJECTS }, key);
  const issuers = Array.from({ length: ISSUERS }, (_, i) => ({ agent: `issuer-${i}`, pubkey: key() }));
  const registeredAt = new Date().toISOString();
  const registered = issuers.filter((_, i) => i % 2 === 0).map((issuer) => provisionalAgentRow(newTimeOrderedId(), issuer.agent, issuer.pubkey, registeredAt));
  await database.db.insertInto('agents').values(registered).execute();
  const expiresAt = new Date(Date.now() + 365 * 86_400_000).toISOString();
  const flows = Math.ceil(RECEIPTS / 3);
  const start = Date.now() - DAYS * 86_400_000;
  const step = (DAYS * 86_400_000) / RECEIPTS;
  let written = 0;

  const rowsOfFlow = (): TrustReceiptsTable[] => {
    const subjectPubkey = random() < HOT_SHARE ? subjects[0]! : subjects[1 + Math.floor(random() * (SUBJECTS - 1))]!;
    const subject = { agent: `subject-${subjectPubkey.slice(8, 16)}`, pubkey: subjectPubkey };
    const issuer = pick(issuers);
    const taskClass = pick(CLASSES);
    const correlationId = randomUUID();
    const expires = random() < 0.5 ? expiresAt : null;
    const outcome = random() < 0.7 ? 'success' : random() < 0.5 ? 'partial' : 'failure';
    const payloads = {
      offer: { taskClass, requiredScopes: ['repo:read'], promisedSlaMs: 60_000 },
      decision: { decision: 'accept' },
      outcome: { outcome, latencyMs: Math.floor(random() * 60_000) },
    };
    return (['offer', 'decision', 'outcome'] as const).map((kind) => {
      const receivedMs = start + written++ * step;
      const receiptId = randomUUID();
      const issuedAt = new Date(receivedMs - 1000).toISOString();
      const envelope = {
        kind,
        version: '2026-03-12',
        receiptId,
        correlationId,
        issuedAt,
        ...(expires ? { expiresAt: expires } : {}),
        taskClass,
        issuer,
        subject,
        payload: payloads[kind],
        signature: { alg: 'Ed25519', keyId: `${issuer.agent}#1`, value: randomBytes(64).toString('base64') },
      };
      return {
        id: newTimeOrderedId(receivedMs),
        receipt_id: receiptId,
        correlation_id: correlationId,
        kind,
        task_class: taskClass,
        issuer_agent: issuer.agent,
        issuer_pubkey: issuer.pubkey,
        subject_agent: subject.agent,
        subject_pubkey: subject.pubkey,
        issued_at: issuedAt,
        expires_at: expires,
        signature_verified: random() < 0.97 ? 1 : 0,
        outcome_value: kind === 'outcome' ? { success: 1, partial: 0.5, failure: 0 }[outcome] : null,
        envelope: canonicalize(envelope)!,
        received_at: new Date(receivedMs).toISOString(),
        log_index: null,
      };
    });
  };

  const started = Date.now();
  let verified = 0;
  let provenId = '';
  let lastFlow: TrustReceiptsTable[] = [];
  for (let flow = 0, chunk = 1; flow < flows; chunk++) {
    const rows: TrustReceiptsTable[] = [];
    for (; flow < flows && rows.length < CHUNK; flow++) rows.push(...(lastFlow = rowsOfFlow()));
    // As the service writes them: the sums that trust and list totals read, in the same transaction.
    await database.transaction((tx) => insertReceipts(tx, database.dialect, rows));
    for (const row of rows) {
      if (row.signature_verified !== 1) continue;
      verified++;
      if (!provenId && written >= RECEIPTS / 2) provenId = row.id;
    }
    if (chunk % 50 === 0) process.stderr.write(`seeded ${written.toLocaleString('en')} receipts (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  // As after any bulk load: the planner's statistics (PostgreSQL: also the visibility map for index-only scans).
  await sql.raw(database.dialect === 'postgres' ? 'VACUUM ANALYZE trust_receipts' : 'ANALYZE').execute(database.db);
  await database.close();
  return { hotSubject: subjects[0]!, typicalSubject: subjects[1]!, hotClass: CLASSES[0]!, correlationId: lastFlow[0]!.correlation_id, verified, provenId };
}

await withCleanup(async (cleanup) => {
  const seconds = benchSeconds(5);
  const database = await benchDatabase(cleanup);
  process.stderr.write(`seeding ${RECEIPTS.toLocaleString('en')} receipts into ${database.dialect} ...\n`);
  const seeded = await seed(database.url);
  const service = await startService(database.url, cleanup);
  // As on the first start after the upgrade that brought the receipt log: every verified receipt is logged.
  process.stderr.write(`logging ${seeded.verified.toLocaleString('en')} verified receipts ...\n`);
  const loggingStarted = Date.now();
  const logSize = async () => Number((await (await fetch(`${service.url}/.tlog/receipts/checkpoint`)).text()).split('\n')[1]);
  for (let size = await logSize(); size < seeded.verified; size = await logSize()) await new Promise((resolve) => setTimeout(resolve, 1000));
  const loggingSeconds = (Date.now() - loggingStarted) / 1000;
  process.stderr.write(`logged in ${loggingSeconds.toFixed(0)} s\n`);
  const q = encodeURIComponent;
  const list = `${service.url}/v1/trust-receipts`;
  const targets: Target[] = [
    { name: `list: hot subject (~${(RECEIPTS * HOT_SHARE).toLocaleString('en')} receipts), newest 20`, url: `${list}?subjectPubkey=${q(seeded.hotSubject)}` },
    { name: 'list: hot subject, one task class', url: `${list}?subjectPubkey=${q(seeded.hotSubject)}&taskClass=${seeded.hotClass}` },
    { name: 'list: hot subject, kind=outcome', url: `${list}?subjectPubkey=${q(seeded.hotSubject)}&kind=outcome` },
    { name: 'list: hot subject, offset 10,000', url: `${list}?subjectPubkey=${q(seeded.hotSubject)}&offset=10000` },
    { name: 'list: typical subject (~45 receipts)', url: `${list}?subjectPubkey=${q(seeded.typicalSubject)}` },
    { name: 'list: one correlation id', url: `${list}?correlationId=${seeded.correlationId}` },
    { name: 'chain of one correlation id', url: `${service.url}/v1/trust-receipts/chain/${seeded.correlationId}` },
    // Before the trust rows: the hot subject's trust is slow enough (seconds a request at 50 clients)
    // that the row after it starts behind its backlog.
    { name: `proof of one receipt (log of ${seeded.verified.toLocaleString('en')})`, url: `${service.url}/v1/trust-receipts/${seeded.provenId}/proof` },
    { name: 'trust of the hot subject', url: `${service.url}/v1/trust?pubkey=${q(seeded.hotSubject)}` },
    { name: 'trust of a typical subject', url: `${service.url}/v1/trust?pubkey=${q(seeded.typicalSubject)}` },
  ];
  // The hot subject's trust must weigh real evidence, or its timing would measure an empty answer.
  const hotTrust = (await (await fetch(`${service.url}/v1/trust?pubkey=${q(seeded.hotSubject)}`)).json()) as { data: { classes: unknown[] } };
  if (hotTrust.data.classes.length === 0) throw new Error('the hot subject has no trust classes: the seeded issuers are not registered');
  const single = await measureAll(targets, { seconds, connections: 1, warmupSeconds: 1 });
  const loaded = await measureAll(targets, { seconds, connections: 50, warmupSeconds: 1 });

  const ms = (value: number) => (value < 1 ? '<1' : String(value));
  const table = markdownTable(
    ['query', '1 client: req/s', 'p50 / p99 ms', '50 clients: req/s', 'p50 / p99 ms'],
    targets.map((target, i) => {
      const one = single[i]!;
      const many = loaded[i]!;
      return [target.name, Math.round(one.rps), `${ms(one.p50)} / ${ms(one.p99)}`, Math.round(many.rps), `${ms(many.p50)} / ${ms(many.p99)}`];
    }),
  );
  console.log(`\n## Receipt queries with ${RECEIPTS.toLocaleString('en')} receipts on ${database.dialect}\n\n${table}\n`);
  console.log(`Receipt log: ${seeded.verified.toLocaleString('en')} stored receipts logged in ${loggingSeconds.toFixed(0)} s after start.\n`);
  const problems = [
    ...problemsOf([...single, ...loaded]),
    // A query slower than the run answers nothing in it: that is a finding, not a quiet zero.
    ...[...single, ...loaded].filter((m) => m.requests === 0).map((m) => `${m.name}: no answer within the run`),
  ];
  for (const problem of problems) console.log(`WARNING ${problem}`);
  writeResult(`receipt-queries-${database.dialect}`, {
    bench: 'receipt-queries',
    dialect: database.dialect,
    date: new Date().toISOString(),
    machine: machine(),
    receipts: RECEIPTS,
    logged: seeded.verified,
    loggingSeconds,
    seconds,
    single,
    loaded,
    table,
    problems,
  });
  if (problems.length > 0) process.exitCode = 1;
});
