/**
 * The prober (docs/registry.md, "Health"): checks each listed agent's endpoint on a schedule.
 *
 *  - A webhook agent gets a signed GET of its endpoint (Standard Webhooks headers over an empty
 *    body, as deliveries are signed). Any HTTP answer below 500 counts as up: a webhook server
 *    answering a GET on its POST route with 404 or 405 has still answered.
 *  - An A2A agent: its agent card, GET /.well-known/agent-card.json on the endpoint's origin; up
 *    when it answers 2xx with a JSON object.
 *  - An MCP agent (a polling agent whose protocols include `mcp`, with an endpoint): an MCP
 *    `initialize` request POSTed to the endpoint; up when it answers 2xx.
 *
 * Probes go through the outbound client, with every guard deliveries have. Each agent has a row in
 * `agent_health_probes`; a node leases the due rows, so an agent is probed by one node at a time and
 * the agents of a node that dies are taken over when their leases end (a node that stops hands its
 * unstarted claims back at once). On a node, one probe per
 * host is in flight at a time and a host's probes start at least `hostGapMs` apart; an agent whose
 * host is busy waits for its turn.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isoIn, isoNow, type Clock } from '../../lib/clock.ts';
import { publicFailureReason, type OutboundClient, type OutboundRequest } from '../../lib/outbound-http.ts';
import type { ScheduledPass } from '../../db/background-passes.ts';
import type { Measurements, Outcome } from './measurements.ts';
import { hourOf } from './rules.ts';
import type { HealthStore } from './store.ts';

/** What the prober needs of an agent (the registry's record has it). */
export interface ProbeTarget {
  id: string;
  endpoint: string | null;
  deliveryMode: string;
  protocols: string[];
  webhookSecret: string | null;
  listing: { state: string };
}

export interface ProberOptions {
  store: HealthStore;
  measurements: Measurements;
  outbound: OutboundClient;
  clock: Clock;
  /** Listed agents with an endpoint, by id, after `afterId`. */
  targetIds(afterId: string | null, limit: number): Promise<string[]>;
  findTarget(id: string): Promise<ProbeTarget | undefined>;
  signWebhook: WebhookSigning;
  intervalMs: number;
  hostGapMs: number;
  /** A probe's time limit; its lease is longer. */
  timeoutMs: number;
  /** Whether this node runs the enrolment pass now (one node of all). */
  scheduledEnrol: ScheduledPass;
  /** Probes in flight on this node at most. */
  concurrency?: number;
  onError: (error: unknown) => void;
}

export type ProbeKind = 'webhook' | 'a2a' | 'mcp';

export function probeKindOf(agent: ProbeTarget): ProbeKind | null {
  if (!agent.endpoint || agent.listing.state !== 'listed') return null;
  if (agent.deliveryMode === 'a2a') return 'a2a';
  if (agent.deliveryMode === 'webhook') return agent.webhookSecret ? 'webhook' : null;
  return agent.protocols.includes('mcp') ? 'mcp' : null;
}

/** Standard Webhooks headers as deliveries carry them (the tasks module's signing, handed in by the composition root). */
export type WebhookSigning = (secret: string, id: string, timestampSeconds: number, body: string) => Record<string, string>;

function requestFor(kind: ProbeKind, agent: ProbeTarget, nowSeconds: number, sign: WebhookSigning): OutboundRequest {
  const endpoint = agent.endpoint!;
  switch (kind) {
    case 'webhook': {
      // Signed as a delivery is (src/modules/tasks/webhook-signature.ts), over an empty body.
      const headers = sign(agent.webhookSecret!, `probe_${randomUUID()}`, nowSeconds, '');
      return { url: endpoint, method: 'GET', headers: { 'user-agent': 'Agentry-Health/1', ...headers } };
    }
    case 'a2a':
      return {
        url: new URL('/.well-known/agent-card.json', endpoint).toString(),
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'Agentry-Health/1' },
      };
    case 'mcp':
      return {
        url: endpoint,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'user-agent': 'Agentry-Health/1' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agentry-health', version: '1' } },
        }),
      };
  }
}

export function createProber(options: ProberOptions) {
  const { store, measurements, outbound, clock, intervalMs, hostGapMs, timeoutMs, onError } = options;
  const concurrency = options.concurrency ?? 8;
  const leaseMs = timeoutMs * 2 + 10_000;
  /** Per host on this node: whether a probe is in flight, and when the next may start. */
  const hosts = new Map<string, { busy: boolean; nextAt: number }>();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let lastEnrolAt = Number.NEGATIVE_INFINITY;
  let probesMade = 0;

  /** ±10%: agents enrolled together drift apart instead of being probed in step forever. */
  const jittered = (ms: number) => Math.round(ms * (0.9 + Math.random() * 0.2));

  async function enrol(): Promise<void> {
    const now = isoNow(clock);
    let after: string | null = null;
    for (;;) {
      const ids = await options.targetIds(after, 500);
      // A first probe somewhere in the coming interval, so a registry of many agents is not probed all at once.
      await store.enrol(ids, () => isoIn(clock, Math.floor(Math.random() * intervalMs)), now);
      if (ids.length < 500) break;
      after = ids.at(-1)!;
    }
    await store.pruneHours(hourOf(clock.now().getTime() - 8 * 24 * 3_600_000));
  }

  function hostOf(agent: ProbeTarget, kind: ProbeKind): string {
    try {
      return new URL(requestFor(kind, agent, 0, () => ({})).url).host;
    } catch {
      return '';
    }
  }

  async function probe(agent: ProbeTarget, kind: ProbeKind): Promise<Outcome> {
    const started = performance.now();
    const result = await outbound.send({
      ...requestFor(kind, agent, Math.floor(clock.now().getTime() / 1000), options.signWebhook),
      trace: { name: 'health probe', attributes: { 'agentry.agent.id': agent.id } },
    });
    const ms = performance.now() - started;
    const target = kind === 'a2a' ? "the agent's card" : "the agent's endpoint";
    if (kind === 'webhook') {
      const status = result.ok ? result.response.status : result.response?.status;
      if (status !== undefined && status < 500) return { ok: true, ms };
    } else if (result.ok) {
      if (kind === 'mcp') return { ok: true, ms };
      try {
        const card: unknown = JSON.parse(result.response.body);
        if (card && typeof card === 'object' && !Array.isArray(card)) return { ok: true, ms };
      } catch {
        // Falls through to the failure below.
      }
      return { ok: false, ms, reason: `${target} is not a JSON object` };
    }
    return {
      ok: false,
      ms,
      reason: result.ok ? `${target} answered HTTP ${result.response.status}` : publicFailureReason(result.failure, target, result.response),
    };
  }

  async function work(id: string): Promise<void> {
    const agent = await options.findTarget(id);
    const kind = agent ? probeKindOf(agent) : null;
    if (!agent || !kind) {
      // Deleted, no longer listed, or no endpoint to probe: enrolment brings it back if that changes.
      await store.forget(id);
      return;
    }
    const host = hostOf(agent, kind);
    const gate = hosts.get(host) ?? { busy: false, nextAt: 0 };
    hosts.set(host, gate);
    const nowMs = Date.now();
    if (gate.busy || gate.nextAt > nowMs) {
      // Its host's turn is not yet: due again then, for whichever node claims it.
      await store.reschedule(id, isoIn(clock, Math.max(gate.nextAt - nowMs, hostGapMs)), isoNow(clock));
      return;
    }
    gate.busy = true;
    gate.nextAt = nowMs + hostGapMs;
    probesMade++;
    try {
      measurements.record(id, await probe(agent, kind));
    } finally {
      gate.busy = false;
      gate.nextAt = Math.max(gate.nextAt, Date.now() + hostGapMs);
    }
    await store.reschedule(id, isoIn(clock, jittered(intervalMs)), isoNow(clock));
  }

  async function tick(): Promise<void> {
    if (Date.now() - lastEnrolAt >= intervalMs && (await options.scheduledEnrol())) {
      lastEnrolAt = Date.now();
      await enrol();
    }
    const room = concurrency - inFlight.size;
    if (room <= 0 || stopped) return;
    const claimed = await store.claim(isoNow(clock), isoIn(clock, leaseMs), room);
    if (stopped) {
      // Stopped while claiming: what was claimed is handed back, due now, so another node probes it
      // at once instead of after the lease (twice the webhook timeout and more).
      const now = isoNow(clock);
      for (const row of claimed) await store.reschedule(row.id, now, now);
      return;
    }
    for (const row of claimed) {
      const running: Promise<void> = work(row.id)
        .catch(onError)
        .finally(() => inFlight.delete(running));
      inFlight.add(running);
    }
  }

  const tickEveryMs = Math.max(50, Math.min(1_000, Math.floor(hostGapMs / 2)));
  /** The tick under way, which stop() waits for: a probe it starts must not outlive the node's stop. */
  let ticking: Promise<void> | null = null;
  const loop = () => {
    timer = setTimeout(() => {
      ticking = tick()
        .catch(onError)
        .finally(() => {
          ticking = null;
          if (!stopped) loop();
        });
    }, tickEveryMs);
    timer.unref();
  };

  return {
    start(): void {
      if (intervalMs <= 0) return;
      stopped = false;
      loop();
    },
    /** Enrols the agents and probes what is due now, waiting for those probes (tests with a manual clock). */
    async pass(): Promise<void> {
      await enrol();
      const claimed = await store.claim(isoNow(clock), isoIn(clock, leaseMs), 1_000);
      await Promise.all(claimed.map((row) => work(row.id).catch(onError)));
    },
    /** The probes this node has made (tests see several nodes share them). */
    probesMade: () => probesMade,
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
      await Promise.all(inFlight);
    },
  };
}

export type Prober = ReturnType<typeof createProber>;
