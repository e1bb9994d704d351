/**
 * A monitor of an Agentry instance (docs/trust.md, "Monitoring an instance"): it reads both
 * transparency logs from where it stopped, checks that each only grew (the new entries and the kept
 * right edge of the tree recompute the signed root), re-derives every trust score from the logged
 * receipts with the documented formula, compares them with what `/v1/trust` answers, and reports
 * every difference and every agent whose key changed. Written from the documentation alone: it
 * shares no code with the service's scoring.
 */
import {
  appendToRange,
  entryBundlePath,
  hashLeaf,
  parseRegistryLogEntry,
  rangeRoot,
  readEntryBundle,
  requireCosignatures,
  verifyCheckpoint,
  type WitnessPolicy,
  type CompactRange,
  type RegistryLogEvent,
} from './tlog.ts';

/** The formula's constants, as docs/trust.md states them. */
const PRIOR = 0.5;
const PRIOR_WEIGHT = 4;
const PARTY_CAP = 3;
const OWNER_FACTOR = 0.5;
const UNCLAIMED_FACTOR = 0.25;
const OUTCOME_VALUES: Record<string, number> = { success: 1, partial: 0.5, failure: 0, rolled_back: 0 };
const round = (value: number) => Math.round(value * 10000) / 10000;
/** Scores agree when they differ by no more than their rounding. */
const SAME = 0.00011;

const LOGS = ['receipts', 'registry'] as const;
type LogName = (typeof LOGS)[number];

/** An outcome receipt as the monitor keeps it: what the formula reads. */
interface LoggedOutcome {
  receiptId: string;
  subject: string;
  taskClass: string;
  issuerKey: string;
  issuerAgent: string;
  value: number;
  expiresAt: string | null;
}

interface KnownAgent {
  slug: string | null;
  key: string | null;
  ownerId: string | null;
  provisional: boolean;
  /** False once the log stops showing its values (private, or deleted). */
  shown: boolean;
  deleted: boolean;
}

/** What a monitor keeps between runs (a JSON file). */
export interface MonitorState {
  version: 1;
  instance: string;
  /** The log keys seen on the first run: later checkpoints must be signed by them. */
  keys: string[];
  logs: Partial<Record<LogName, { checkpoint: string; size: number; range: [number, string][] }>>;
  outcomes: LoggedOutcome[];
  agents: Record<string, KnownAgent>;
}

export interface MonitorDifference {
  kind: 'log' | 'witness' | 'score' | 'evidence' | 'party';
  message: string;
  pubkey?: string;
  taskClass?: string;
}

export interface KeyChange {
  agentId: string;
  event: 'key_added' | 'key_rotated' | 'key_revoked';
  key: string | null;
  previousKey: string | null;
  time: string;
  logIndex: number;
}

export interface MonitorReport {
  instance: string;
  agrees: boolean;
  /** Per log: the sizes read, and the trusted witnesses that cosigned the checkpoint read. */
  logs: Record<LogName, { origin: string; from: number; to: number; cosignedBy: string[] }>;
  /** Subject keys whose scores were re-derived and compared. */
  keysChecked: number;
  classesChecked: number;
  differences: MonitorDifference[];
  keyChanges: KeyChange[];
  state: MonitorState;
}

export interface MonitorOptions {
  /** The instance's base URL. */
  url: string;
  /** What the last run kept (null on the first run). */
  state: MonitorState | null;
  /** Trusted log verifier keys; default: those of the state, or on the first run those the instance lists (trusted as given). */
  keys?: string[];
  fetch?: typeof fetch;
  /** Witnesses whose cosignatures every checkpoint read must carry (a checkpoint without enough is a difference). */
  witnesses?: WitnessPolicy;
  /** The time expiry is judged at; default now. */
  now?: Date;
}

/** One trust class as `/v1/trust?explain=true` explains it. */
interface ExplainedClass {
  taskClass: string;
  score: number;
  weight: number;
  counted: {
    party: { kind: 'owner'; id: string } | { kind: 'key'; pubkey: string };
    weight: number;
    value: number;
    taskBound: { receiptId: string; issuerPubkey: string; value: number }[];
    unbound: { issuerPubkey: string; issuerAgent: string; receipts: number; value: number; weight: number }[];
  }[];
  notCounted: { issuerPubkey: string; issuerAgent: string; receipts: number; reason: string }[];
}

export async function monitorInstance(options: MonitorOptions): Promise<MonitorReport> {
  const base = options.url.replace(/\/+$/, '');
  const get = options.fetch ?? fetch;
  const now = (options.now ?? new Date()).toISOString();
  const read = async (path: string): Promise<Response> => {
    const response = await get(`${base}${path}`);
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${(await response.text()).slice(0, 200)}`);
    return response;
  };
  const previous = options.state;
  if (previous && previous.instance !== base) throw new Error(`the state file is of ${previous.instance}, not ${base}`);
  const keys = options.keys ?? previous?.keys ?? (await (await read('/.tlog/keys')).text()).split('\n').filter(Boolean);
  const state: MonitorState = previous ? structuredClone(previous) : { version: 1, instance: base, keys, logs: {}, outcomes: [], agents: {} };
  const differences: MonitorDifference[] = [];
  const keyChanges: KeyChange[] = [];
  const logs = {} as MonitorReport['logs'];

  for (const name of LOGS) {
    const note = await (await read(`/.tlog/${name}/checkpoint`)).text();
    const checkpoint = verifyCheckpoint(note, keys);
    const kept = state.logs[name];
    const from = kept?.size ?? 0;
    logs[name] = { origin: checkpoint.origin, from, to: checkpoint.size, cosignedBy: [] };
    if (options.witnesses && options.witnesses.required > 0) {
      try {
        logs[name].cosignedBy = requireCosignatures(note, options.witnesses.witnessKeys, options.witnesses.required).map(
          (cosignature) => cosignature.witness.name,
        );
      } catch (error) {
        differences.push({ kind: 'witness', message: `the ${name} log's checkpoint at size ${checkpoint.size}: ${(error as Error).message}` });
      }
    }
    if (kept && checkpoint.size < kept.size) {
      differences.push({ kind: 'log', message: `the ${name} log shrank from size ${kept.size} to ${checkpoint.size}` });
      continue;
    }
    let range: CompactRange = (kept?.range ?? []).map(([height, hash]) => [height, Buffer.from(hash, 'base64')]);
    const entries: Buffer[] = [];
    for (let tile = Math.floor(from / 256); tile * 256 < checkpoint.size; tile++) {
      const width = Math.min(256, checkpoint.size - tile * 256);
      const bundle = readEntryBundle(Buffer.from(await (await read(`/.tlog/${name}/${entryBundlePath(tile, width)}`)).arrayBuffer()));
      if (bundle.length !== width) {
        differences.push({ kind: 'log', message: `the ${name} log's entry bundle ${tile} holds ${bundle.length} entries, not ${width}` });
        break;
      }
      entries.push(...bundle.slice(Math.max(0, from - tile * 256)));
    }
    for (const entry of entries) range = appendToRange(range, hashLeaf(entry));
    if (entries.length !== checkpoint.size - from || !rangeRoot(range).equals(checkpoint.root)) {
      differences.push({
        kind: 'log',
        message: `the ${name} log at size ${checkpoint.size} is not the tree of size ${from} seen before plus the entries it serves (a fork, or entries changed)`,
      });
      continue;
    }
    entries.forEach((entry, i) => (name === 'receipts' ? keepReceipt(state, entry) : keepEvent(state, entry, from + i, keyChanges, differences)));
    state.logs[name] = { checkpoint: note, size: checkpoint.size, range: range.map(([height, hash]) => [height, hash.toString('base64')]) };
  }

  // Every key that outcomes from another key speak about, whether or not they still count.
  const subjects = [...new Set(state.outcomes.filter((outcome) => outcome.issuerKey !== outcome.subject).map((outcome) => outcome.subject))].sort();
  let classesChecked = 0;
  for (const subject of subjects) {
    const answer = (await (await read(`/v1/trust?pubkey=${encodeURIComponent(subject)}&explain=true`)).json()) as {
      data: {
        classes: { taskClass: string; score: number; receipts: number; issuers: number; weight: number; taskBound: number }[];
        explanation: { classes: ExplainedClass[] };
      };
    };
    const derived = deriveScores(subject, state, answer.data.explanation.classes, now, differences);
    classesChecked += derived.size;
    const served = new Map(answer.data.classes.map((entry) => [entry.taskClass, entry]));
    for (const [taskClass, mine] of derived) {
      const theirs = served.get(taskClass);
      if (!theirs && mine.weight > 0) {
        differences.push({
          kind: 'score',
          pubkey: subject,
          taskClass,
          message: `the logged receipts give ${subject} a score of ${mine.score} in ${taskClass}; the instance gives none`,
        });
        continue;
      }
      if (!theirs) continue;
      if (
        Math.abs(theirs.score - mine.score) > SAME ||
        Math.abs(theirs.weight - mine.weight) > SAME ||
        theirs.receipts !== mine.receipts ||
        theirs.taskBound !== mine.taskBound
      )
        differences.push({
          kind: 'score',
          pubkey: subject,
          taskClass,
          message: `${subject} in ${taskClass}: the instance answers score ${theirs.score} (weight ${theirs.weight}, ${theirs.receipts} receipts, ${theirs.taskBound} task-bound); the logged receipts give ${mine.score} (weight ${mine.weight}, ${mine.receipts}, ${mine.taskBound})`,
        });
    }
    for (const theirs of answer.data.classes)
      if (!derived.has(theirs.taskClass))
        differences.push({
          kind: 'score',
          pubkey: subject,
          taskClass: theirs.taskClass,
          message: `the instance scores ${subject} ${theirs.score} in ${theirs.taskClass}, for which the log holds no receipt`,
        });
  }
  return { instance: base, agrees: differences.length === 0, logs, keysChecked: subjects.length, classesChecked, differences, keyChanges, state };
}

function keepReceipt(state: MonitorState, entry: Buffer): void {
  const receipt = JSON.parse(entry.toString('utf8')) as {
    kind?: string;
    receiptId?: string;
    taskClass?: string;
    expiresAt?: string;
    issuer?: { agent?: string; pubkey?: string };
    subject?: { pubkey?: string };
    payload?: { outcome?: string };
  };
  if (receipt.kind !== 'outcome') return;
  const value = OUTCOME_VALUES[receipt.payload?.outcome ?? ''];
  if (value === undefined || !receipt.receiptId || !receipt.taskClass || !receipt.issuer?.pubkey || !receipt.issuer.agent || !receipt.subject?.pubkey) return;
  state.outcomes.push({
    receiptId: receipt.receiptId,
    subject: receipt.subject.pubkey,
    taskClass: receipt.taskClass,
    issuerKey: receipt.issuer.pubkey,
    issuerAgent: receipt.issuer.agent,
    value,
    expiresAt: receipt.expiresAt ?? null,
  });
}

function keepEvent(state: MonitorState, entry: Buffer, logIndex: number, keyChanges: KeyChange[], differences: MonitorDifference[]): void {
  let event: RegistryLogEvent;
  try {
    event = parseRegistryLogEntry(entry);
  } catch (error) {
    differences.push({ kind: 'log', message: `registry log entry ${logIndex}: ${(error as Error).message}` });
    return;
  }
  const values = event.values as Record<string, unknown>;
  const shown = Object.keys(values).length > 0;
  const known: KnownAgent = state.agents[event.agentId] ?? { slug: null, key: null, ownerId: null, provisional: false, shown: false, deleted: false };
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : null);
  switch (event.event) {
    case 'registered':
    case 'visibility_changed':
      if ('name' in values) {
        Object.assign(known, { slug: text('slug'), key: text('key'), ownerId: text('ownerId'), provisional: values.provisional === true, shown: true });
      } else known.shown = shown && event.event === 'registered';
      break;
    case 'claimed':
      if (shown) Object.assign(known, { ownerId: text('ownerId'), provisional: false });
      break;
    case 'key_added':
    case 'key_rotated':
    case 'key_revoked':
      keyChanges.push({ agentId: event.agentId, event: event.event, key: text('key'), previousKey: text('previousKey'), time: event.time, logIndex });
      if (shown) known.key = text('key');
      break;
    case 'deleted':
      Object.assign(known, { deleted: true, shown: false });
      break;
    default:
      break;
  }
  state.agents[event.agentId] = known;
}

/**
 * The formula of docs/trust.md over the logged receipts, for one subject key. What the logs cannot
 * show (which receipts are bound to tasks, and who owns an issuer the registry log does not show)
 * is taken from the instance's explanation, after checking it against the logs: every receipt it
 * names is a logged, unexpired outcome of that issuer about this key in that class, its counts and
 * values are the logged ones, every logged issuer is accounted for, and an issuer the registry log
 * shows sits in the party of its logged owner.
 */
function deriveScores(
  subject: string,
  state: MonitorState,
  explained: ExplainedClass[],
  now: string,
  differences: MonitorDifference[],
): Map<string, { score: number; weight: number; receipts: number; taskBound: number }> {
  const live = state.outcomes.filter(
    (outcome) => outcome.subject === subject && outcome.issuerKey !== subject && (outcome.expiresAt === null || outcome.expiresAt > now),
  );
  const byId = new Map(live.map((outcome) => [outcome.receiptId, outcome]));
  const groupKey = (taskClass: string, issuerKey: string, issuerAgent: string) => `${taskClass}\n${issuerKey}\n${issuerAgent}`;
  const groups = new Map<string, LoggedOutcome[]>();
  for (const outcome of live) {
    const key = groupKey(outcome.taskClass, outcome.issuerKey, outcome.issuerAgent);
    groups.set(key, [...(groups.get(key) ?? []), outcome]);
  }
  const explainedClasses = new Map(explained.map((entry) => [entry.taskClass, entry]));
  const result = new Map<string, { score: number; weight: number; receipts: number; taskBound: number }>();
  const differ = (taskClass: string, kind: MonitorDifference['kind'], message: string) => differences.push({ kind, pubkey: subject, taskClass, message });

  for (const taskClass of new Set([...live.map((outcome) => outcome.taskClass), ...explained.map((entry) => entry.taskClass)])) {
    const entry = explainedClasses.get(taskClass);
    if (!entry) {
      differ(taskClass, 'evidence', `the log holds outcomes about ${subject} in ${taskClass} that the instance's explanation does not mention`);
      continue;
    }
    const accounted = new Map<string, number>();
    const take = (key: string, count: number) => accounted.set(key, (accounted.get(key) ?? 0) + count);
    let weight = 0;
    let weighted = 0;
    let receipts = 0;
    let taskBound = 0;
    for (const party of entry.counted) {
      // Task-bound: each receipt named must be a logged, unexpired outcome of that issuer about this key in this class.
      const bound: number[] = [];
      for (const named of party.taskBound) {
        const logged = byId.get(named.receiptId);
        if (!logged || logged.taskClass !== taskClass || logged.issuerKey !== named.issuerPubkey) {
          differ(
            taskClass,
            'evidence',
            `task-bound receipt ${named.receiptId} is not a logged, unexpired outcome by ${named.issuerPubkey} about ${subject} in ${taskClass}`,
          );
          continue;
        }
        take(groupKey(taskClass, logged.issuerKey, logged.issuerAgent), 1);
        bound.push(logged.value);
      }
      const boundIds = new Set(party.taskBound.map((named) => named.receiptId));
      let unboundCount = 0;
      let unboundSum = 0;
      for (const item of party.unbound) {
        const key = groupKey(taskClass, item.issuerPubkey, item.issuerAgent);
        const logged = (groups.get(key) ?? []).filter((outcome) => !boundIds.has(outcome.receiptId) && !isBoundElsewhere(outcome, entry));
        const sum = logged.reduce((total, outcome) => total + outcome.value, 0);
        if (logged.length !== item.receipts || (logged.length > 0 && Math.abs(round(sum / logged.length) - item.value) > SAME))
          differ(
            taskClass,
            'evidence',
            `${item.issuerAgent} (${item.issuerPubkey}): the instance counts ${item.receipts} receipts of mean ${item.value}; the log holds ${logged.length}${logged.length ? ` of mean ${round(sum / logged.length)}` : ''}`,
          );
        take(key, item.receipts);
        unboundCount += logged.length;
        unboundSum += sum;
        checkParty(state, party.party, item.issuerPubkey, item.issuerAgent, (message) => differ(taskClass, 'party', message));
      }
      // The formula, party by party (docs/trust.md, "Weights").
      const factor = party.party.kind === 'owner' ? OWNER_FACTOR : UNCLAIMED_FACTOR;
      const b = Math.min(bound.length, PARTY_CAP);
      const u = Math.min(unboundCount, PARTY_CAP) * factor;
      const raw = b + u;
      const boundMean = bound.length ? bound.reduce((total, value) => total + value, 0) / bound.length : 0;
      const unboundMean = unboundCount ? unboundSum / unboundCount : 0;
      const w = Math.min(raw, PARTY_CAP);
      const v = raw > 0 ? (b * boundMean + u * unboundMean) / raw : 0;
      if (Math.abs(round(w) - party.weight) > SAME)
        differ(taskClass, 'party', `a party's weight is ${party.weight} at the instance; the formula gives ${round(w)}`);
      weight += w;
      weighted += w * v;
      receipts += bound.length + unboundCount;
      taskBound += bound.length;
    }
    for (const item of entry.notCounted) take(groupKey(taskClass, item.issuerPubkey, item.issuerAgent), item.receipts);
    for (const [key, logged] of groups) {
      if (!key.startsWith(`${taskClass}\n`)) continue;
      const counted = accounted.get(key) ?? 0;
      if (counted !== logged.length) {
        const [, issuerKey, issuerAgent] = key.split('\n');
        differ(
          taskClass,
          'evidence',
          `${issuerAgent} (${issuerKey}): the log holds ${logged.length} unexpired outcomes about ${subject}; the instance accounts for ${counted}`,
        );
      }
    }
    const score = round((PRIOR * PRIOR_WEIGHT + weighted) / (PRIOR_WEIGHT + weight));
    if (entry.counted.length > 0 && Math.abs(score - entry.score) > SAME)
      differ(taskClass, 'score', `the explanation gives ${subject} ${entry.score} in ${taskClass}; its own parties give ${score} by the formula`);
    result.set(taskClass, { score: entry.counted.length > 0 ? score : PRIOR, weight: round(weight), receipts, taskBound });
  }
  return result;
}

/** A receipt another party binds to a task is not also an ordinary outcome of this one. */
const isBoundElsewhere = (outcome: LoggedOutcome, entry: ExplainedClass) =>
  entry.counted.some((party) => party.taskBound.some((named) => named.receiptId === outcome.receiptId));

/** An issuer the registry log shows (a public agent answering to `issuerAgent` with that key) belongs to its logged owner's party. */
function checkParty(
  state: MonitorState,
  party: ExplainedClass['counted'][number]['party'],
  issuerKey: string,
  issuerAgent: string,
  differ: (message: string) => void,
): void {
  const candidates = Object.entries(state.agents).filter(([, agent]) => agent.shown && !agent.deleted && agent.key === issuerKey);
  const agent = candidates.find(([id]) => id === issuerAgent)?.[1] ?? candidates.find(([, known]) => known.slug === issuerAgent)?.[1];
  if (!agent) return;
  const logged = agent.ownerId ? `owner ${agent.ownerId}` : `unclaimed key ${issuerKey}`;
  const served = party.kind === 'owner' ? `owner ${party.id}` : `unclaimed key ${party.pubkey}`;
  if (logged !== served) differ(`${issuerAgent} (${issuerKey}) is counted as ${served}'s; the registry log shows it as ${logged}'s`);
}
