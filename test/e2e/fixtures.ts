/** The data the browser tests and the screenshots share: a few agents, trust receipts, and hostile text. */
import { randomUUID } from 'node:crypto';
import type { TestApp } from '../helpers/app.ts';
import { newAgentKey, proveKey, type AgentKey } from '../helpers/agents.ts';
import { makeReceipt } from '../helpers/receipts.ts';

/** Each of these, run as script, sets window.__xss or opens a dialog. */
export const hostile = {
  img: '<img src=x onerror="window.__xss=1;alert(1)">',
  script: '<script>window.__xss=1</script>',
  link: 'javascript:window.__xss=1',
};

const translatorMarkdown = `Translates contracts, terms of service and other legal text between **English**, German and French.

- keeps defined terms consistent across the document
- flags clauses that have no equivalent in the target law

See [the guide](https://docs.example.com/translator) for formats.`;

const hostileMarkdown = `# Hostile notes

${hostile.img}

${hostile.script}

[click me](${hostile.link}) and <a href="${hostile.link}">this one</a> and <a href="data:text/html,<script>window.__xss=1</script>">data</a>.

<iframe src="${hostile.link}"></iframe><svg onload="window.__xss=1"></svg><div onclick="window.__xss=1">plain</div>`;

export interface Seeded {
  owner: { token: string; email: string };
  translator: { id: string; slug: string; name: string };
  /** The translator's registration key, proven. */
  translatorPubkey: string;
  hostileAgent: { id: string; slug: string; name: string };
  agentCount: number;
  chainCorrelationId: string;
}

async function register(app: TestApp, token: string, body: Record<string, unknown>) {
  const response = await app.request({ method: 'POST', url: '/v1/agents', token, body });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; slug: string; name: string };
}

async function heartbeat(app: TestApp, token: string, agentId: string) {
  const response = await app.request({ method: 'POST', url: `/v1/agents/${agentId}/heartbeat`, token, body: { status: 'available', load: 0.2 } });
  if (response.statusCode !== 200) throw new Error(`heartbeat failed: ${response.statusCode} ${response.body}`);
}

async function submitReceipt(app: TestApp, receipt: unknown) {
  const response = await app.request({ method: 'POST', url: '/v1/trust-receipts', body: receipt });
  if (response.statusCode !== 201) throw new Error(`receipt refused: ${response.statusCode} ${response.body}`);
}

export async function seed(app: TestApp, options: { hostile?: boolean } = {}): Promise<Seeded> {
  const owner = await app.signup('owner@example.test');
  const translatorKey = newAgentKey();
  const translator = await register(app, owner.token, {
    name: 'Contract Translator',
    description: 'Translates contracts and legal documents between English, German and French',
    longDescription: translatorMarkdown,
    docsUrl: 'https://docs.example.com/translator',
    endpoint: 'https://translator.example.com/tasks',
    protocols: ['rest', 'mcp'],
    categories: ['language'],
    capabilities: ['translation', 'legal-translation', 'terminology'],
    examples: ['Put our German supply contract into plain English', 'Translate this NDA into French before Friday'],
    version: '2.3.0',
    pricePerTaskCents: 200,
    currency: 'usd',
    pubkey: translatorKey.pubkey,
  });
  await proveKey(app, owner.token, translator.id, translatorKey);
  await heartbeat(app, owner.token, translator.id);

  const others = [
    {
      name: 'PR Reviewer',
      description: 'Reviews pull requests for bugs, style and missing tests',
      categories: ['coding'],
      capabilities: ['code-review', 'testing'],
      protocols: ['a2a'],
    },
    {
      name: 'PDF Summariser',
      description: 'Summarises long PDF reports into one-page briefs',
      categories: ['productivity'],
      capabilities: ['summarization', 'pdf-extraction'],
      protocols: ['rest'],
    },
    {
      name: 'Invoice Reader',
      description: 'Reads invoices and returns totals, dates and line items as JSON',
      categories: ['finance'],
      capabilities: ['data-extraction', 'ocr'],
      protocols: ['rest', 'webhook'],
      pricePerTaskCents: 50,
    },
    {
      name: 'Meeting Notes',
      description: 'Turns meeting transcripts into decisions and action items',
      categories: ['productivity'],
      capabilities: ['summarization', 'transcription'],
      protocols: ['mcp'],
    },
  ];
  // Another person runs these: receipts between agents of one owner would not count as trust.
  const otherOwner = await app.signup('other-owner@example.test');
  const issuers: { slug: string; key: AgentKey }[] = [];
  for (const other of others) {
    const key = newAgentKey();
    const agent = await register(app, otherOwner.token, { ...other, endpoint: 'https://agents.example.com/tasks', pubkey: key.pubkey });
    await proveKey(app, otherOwner.token, agent.id, key);
    if (other.name === 'PR Reviewer') await heartbeat(app, otherOwner.token, agent.id);
    issuers.push({ slug: agent.slug, key });
  }

  // Receipts from three other registered agents about the translator, and one whole offer -> decision -> outcome chain.
  const subject = { agent: translator.slug, key: translatorKey };
  for (const [i, issuer] of issuers.slice(0, 3).entries()) {
    for (let n = 0; n < 3 + i; n++) {
      await submitReceipt(
        app,
        makeReceipt('outcome', { agent: issuer.slug, key: issuer.key }, subject, {
          taskClass: 'language.translation.legal',
          payload: { outcome: n === 0 && i === 2 ? 'failure' : 'success', latencyMs: 900 },
        }),
      );
    }
  }
  const chainCorrelationId = randomUUID();
  const client = { agent: issuers[3]!.slug, key: issuers[3]!.key };
  await submitReceipt(
    app,
    makeReceipt('offer', client, subject, {
      correlationId: chainCorrelationId,
      taskClass: 'language.translation.legal',
      issuedAt: '2026-11-21T10:00:00Z',
      payload: { taskClass: 'language.translation.legal', requiredScopes: [], promisedSlaMs: 60000 },
    }),
  );
  await submitReceipt(
    app,
    makeReceipt('decision', subject, client, { correlationId: chainCorrelationId, taskClass: 'language.translation.legal', issuedAt: '2026-11-21T10:00:01Z' }),
  );
  await submitReceipt(
    app,
    makeReceipt('outcome', client, subject, {
      correlationId: chainCorrelationId,
      taskClass: 'language.translation.legal',
      issuedAt: '2026-11-21T12:00:00Z',
      payload: { outcome: 'success', latencyMs: 1200 },
    }),
  );
  // Words from a key no agent registered: stored and verified, but they do not count (the explanation says why).
  await submitReceipt(
    app,
    makeReceipt('outcome', { agent: 'stranger', key: newAgentKey() }, subject, {
      taskClass: 'language.translation.legal',
      issuedAt: '2026-11-20T09:00:00Z',
      payload: { outcome: 'success', latencyMs: 700 },
    }),
  );
  // A receipt whose signature does not verify is stored and shown as such.
  const forged = makeReceipt('outcome', client, subject, { taskClass: 'language.translation.legal', issuedAt: '2026-11-21T12:30:00Z' });
  forged.signature.value = Buffer.alloc(64, 7).toString('base64');
  await submitReceipt(app, forged);

  if (options.hostile === false)
    return { owner, translator, translatorPubkey: translatorKey.pubkey, hostileAgent: translator, agentCount: 1 + others.length, chainCorrelationId };
  const hostileAgent = await register(app, owner.token, {
    name: `Hostile ${hostile.img}`,
    description: `Looks harmless ${hostile.script} ${hostile.img}`,
    longDescription: hostileMarkdown,
    endpoint: 'https://hostile.example.com/tasks',
    protocols: ['rest'],
    categories: ['security'],
    capabilities: [`xss-probe`],
    examples: [`Probe ${hostile.img}`, `Check ${hostile.script}`],
  });
  // The API refuses a javascript: docs link; a row written before that rule, or by hand, must still render as text.
  await app.database.db.updateTable('agents').set({ docs_url: hostile.link }).where('id', '=', hostileAgent.id).execute();

  return { owner, translator, translatorPubkey: translatorKey.pubkey, hostileAgent, agentCount: 2 + others.length, chainCorrelationId };
}
