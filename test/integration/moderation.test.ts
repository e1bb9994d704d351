/**
 * Moderation (docs/moderation.md): roles and the admin command, reports, the queue, actions and
 * their audit log, appeals, and what each action does to what others see. One app for the file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import type { AddressInfo } from 'node:net';
import { expectError, otherNode, signupPassword, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.ts';
import { openEvents } from '../helpers/events.ts';
import { waitFor } from '../helpers/wait.ts';
import { processDatabase } from '../helpers/processes.ts';
import { registerAgent } from '../helpers/agents.ts';
import { comment, createPost, socialUser, type SocialUser } from '../helpers/social.ts';

const run = promisify(execFile);

const REPORTS_PER_HOUR = 6;

let app: TestApp;
const command = (...args: string[]) => runAdminCommand(args, app.database.db, app.clock);
const emailOf = async (token: string) => (await app.request({ method: 'GET', url: '/v1/auth/account', token })).json().data.email as string;
const agentView = async (id: string, token: string | null) => app.request({ method: 'GET', url: `/v1/agents/${id}`, token });
const discovered = async (node: TestApp, q: string) =>
  ((await node.request({ method: 'GET', url: `/v1/discover?q=${q}&limit=50` })).json().data as { id: string }[]).map((a) => a.id);

before(async () => {
  app = await startTestApp({ REPORTS_PER_ACCOUNT_PER_HOUR: String(REPORTS_PER_HOUR), CREDENTIAL_RATE_LIMIT_MAX: '10000' });
});
after(() => app?.close());

describe('roles', () => {
  let admin: { token: string; accountId: string };
  let moderator: { token: string; accountId: string };
  let person: { token: string; accountId: string };

  before(async () => {
    admin = await app.signup();
    moderator = await app.signup();
    person = await app.signup();
  });

  it('the command grants admin by default, a named role on request, and says what it did', async () => {
    const granted = await command('grant', (await emailOf(admin.token)).toUpperCase());
    assert.equal(granted.exitCode, 0);
    assert.match(granted.output, new RegExp(`now has the role admin`));
    assert.match(granted.output, new RegExp(admin.accountId));
    const again = await command('grant', await emailOf(admin.token));
    assert.match(again.output, /already had the role admin/);
    const mod = await command('grant', await emailOf(moderator.token), '--role', 'moderator');
    assert.equal(mod.exitCode, 0);
    assert.match(mod.output, /now has the role moderator/);
  });

  it('the command refuses unknown people and wrong usage, and revokes', async () => {
    const unknown = await command('grant', 'nobody@example.test');
    assert.equal(unknown.exitCode, 1);
    assert.match(unknown.output, /no person's account has the email/);
    for (const args of [[], ['grant'], ['promote', 'a@b.c'], ['grant', 'a@b.c', '--role', 'owner'], ['revoke', 'a@b.c', '--role', 'admin']]) {
      assert.equal((await command(...args)).exitCode, 64, args.join(' '));
    }
    const email = await emailOf(person.token);
    assert.match((await command('revoke', email)).output, /had no role; nothing changed/);
    await command('grant', email, '--role=moderator');
    assert.match((await command('revoke', email)).output, /no longer has the role moderator/);
  });

  it('the real command runs beside the service and prints what it did', async () => {
    if (testDatabaseUrl) {
      // On PostgreSQL the test app lives in a schema of its own; a database of its own shows the command migrating and answering.
      const database = await processDatabase('admincmd');
      try {
        const result = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'grant', 'nobody@example.test'], {
          env: { ...process.env, DATABASE_URL: database.databaseUrl },
        }).catch((error: { code: number; stderr: string }) => error);
        assert.equal((result as { code: number }).code, 1);
        assert.match((result as { stderr: string }).stderr, /no person's account has the email nobody@example.test/);
      } finally {
        await database.cleanup();
      }
      return;
    }
    const someone = await app.signup();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'grant', await emailOf(someone.token), '--role', 'moderator'], {
      env: { ...process.env, DATABASE_URL: `sqlite:${app.database.sqliteFile}` },
    });
    assert.match(stdout, /now has the role moderator/);
    // The running service sees the role at the next request: a moderator, not someone without a role.
    assert.match(expectError(await app.request({ method: 'GET', url: '/v1/admin/roles', token: someone.token }), 403, 'FORBIDDEN').message, /Only admins/);
  });

  it('admin routes: no credential 401, no role 403 (before the body is looked at), moderators not on admin-only routes', async () => {
    expectError(await app.request({ method: 'GET', url: '/v1/admin/roles' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/admin/roles', token: person.token }), 403, 'FORBIDDEN');
    expectError(
      await app.request({ method: 'PUT', url: `/v1/admin/roles/${person.accountId}`, token: person.token, body: { role: 'king' } }),
      403,
      'FORBIDDEN',
    );
    expectError(await app.request({ method: 'PUT', url: `/v1/admin/roles/${person.accountId}`, body: { nonsense: true } }), 401, 'UNAUTHORIZED');
    const refused = expectError(await app.request({ method: 'GET', url: '/v1/admin/roles', token: moderator.token }), 403, 'FORBIDDEN');
    assert.match(refused.message, /Only admins/);
    expectError(
      await app.request({ method: 'PUT', url: `/v1/admin/roles/${person.accountId}`, token: moderator.token, body: { role: 'admin' } }),
      403,
      'FORBIDDEN',
    );
  });

  it('GET /v1/moderation/role tells each signed-in person their own role; 401 without a credential', async () => {
    const roleOf = async (token: string) => {
      const response = await app.request({ method: 'GET', url: '/v1/moderation/role', token });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data.role as string | null;
    };
    assert.equal(await roleOf(admin.token), 'admin');
    assert.equal(await roleOf(moderator.token), 'moderator');
    assert.equal(await roleOf(person.token), null);
    expectError(await app.request({ method: 'GET', url: '/v1/moderation/role' }), 401, 'UNAUTHORIZED');
  });

  it('an admin lists, grants and revokes roles; bad input 400, unknown account 404, never the last admin', async () => {
    const list = await app.request({ method: 'GET', url: '/v1/admin/roles', token: admin.token });
    assert.equal(list.statusCode, 200);
    const roles = list.json().data as { accountId: string; role: string; grantedBy: string | null }[];
    assert.deepEqual(roles.find((r) => r.accountId === admin.accountId)?.grantedBy, null);
    assert.equal(roles.find((r) => r.accountId === moderator.accountId)?.role, 'moderator');

    expectError(
      await app.request({ method: 'PUT', url: `/v1/admin/roles/${person.accountId}`, token: admin.token, body: { role: 'king' } }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await app.request({ method: 'PUT', url: '/v1/admin/roles/no-such-account', token: admin.token, body: { role: 'moderator' } }),
      404,
      'NOT_FOUND',
    );
    const granted = await app.request({ method: 'PUT', url: `/v1/admin/roles/${person.accountId}`, token: admin.token, body: { role: 'moderator' } });
    assert.equal(granted.statusCode, 200);
    assert.equal(granted.json().data.grantedBy, admin.accountId);
    const revoked = await app.request({ method: 'DELETE', url: `/v1/admin/roles/${person.accountId}`, token: admin.token });
    assert.deepEqual(revoked.json().data, { accountId: person.accountId, revoked: 'moderator' });
    expectError(await app.request({ method: 'DELETE', url: `/v1/admin/roles/${person.accountId}`, token: admin.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'DELETE', url: `/v1/admin/roles/${admin.accountId}`, token: admin.token }), 409, 'CONFLICT');
    expectError(await app.request({ method: 'GET', url: '/v1/admin/roles', token: person.token }), 403, 'FORBIDDEN');
  });
});

const report = (token: string | null, subject: { type: string; id: string }, reason = 'spam', note?: string) =>
  app.request({ method: 'POST', url: '/v1/reports', token, body: { subject, reason, ...(note === undefined ? {} : { note }) } });

async function agentKeyOf(token: string, agentId: string) {
  const response = await app.request({ method: 'POST', url: '/v1/api-keys', token, body: { name: 'agent key', agentId } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().data.key as string;
}

describe('reports', () => {
  let author: SocialUser;
  let reporter: SocialUser;
  let postId: string;
  let commentId: string;
  let agentId: string;
  let privateAgentId: string;

  before(async () => {
    author = await socialUser(app);
    reporter = await socialUser(app);
    postId = (await createPost(app, author.token, 'Buy cheap followers now')).id;
    commentId = (await comment(app, author.token, postId, 'Really cheap')).id;
    agentId = (await registerAgent(app, author.token)).id;
    privateAgentId = (await registerAgent(app, author.token, { visibility: 'private' })).id;
  });

  it('anyone signed in reports a post, comment, agent or account: 201 open; the same open report again is 200 with it', async () => {
    const first = await report(reporter.token, { type: 'post', id: postId }, 'spam', 'Selling followers');
    assert.equal(first.statusCode, 201, first.body);
    const created = first.json().data;
    assert.equal(created.status, 'open');
    const again = await report(reporter.token, { type: 'post', id: postId }, 'abuse');
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json().data, created);
    for (const subject of [
      { type: 'comment', id: commentId },
      { type: 'agent', id: agentId },
      { type: 'account', id: author.accountId },
    ]) {
      const response = await report(reporter.token, subject, 'impersonation');
      assert.equal(response.statusCode, 201, `${subject.type}: ${response.body}`);
    }
  });

  it("an agent's key reports too, as its agent", async () => {
    const agent = await registerAgent(app, reporter.token);
    const key = await agentKeyOf(reporter.token, agent.id);
    const response = await report(key, { type: 'post', id: postId }, 'unsafe');
    assert.equal(response.statusCode, 201, response.body);
  });

  it('reporting yourself, a missing subject or one you cannot see is a clear 4xx; bad input 400; no credential 401', async () => {
    const own = expectError(await report(author.token, { type: 'post', id: postId }), 400, 'BAD_REQUEST');
    assert.match(own.message, /yourself/);
    expectError(await report(author.token, { type: 'account', id: author.accountId }), 400, 'BAD_REQUEST');
    const ownAgentKey = await agentKeyOf(author.token, agentId);
    expectError(await report(ownAgentKey, { type: 'agent', id: agentId }), 400, 'BAD_REQUEST');
    const missing = expectError(await report(reporter.token, { type: 'post', id: '00000000-0000-4000-8000-000000000000' }), 404, 'NOT_FOUND');
    assert.match(missing.message, /No post/);
    expectError(await report(reporter.token, { type: 'agent', id: privateAgentId }), 404, 'NOT_FOUND');
    expectError(await report(reporter.token, { type: 'account', id: 'no-such-account' }), 404, 'NOT_FOUND');
    expectError(await report(reporter.token, { type: 'post', id: postId }, 'boring'), 400, 'BAD_REQUEST');
    expectError(await report(reporter.token, { type: 'user', id: postId }), 400, 'BAD_REQUEST');
    expectError(await report(reporter.token, { type: 'post', id: postId }, 'other', 'x'.repeat(1001)), 400, 'BAD_REQUEST');
    expectError(await report(null, { type: 'post', id: postId }), 401, 'UNAUTHORIZED');
  });

  it("GET /v1/reports lists the reporter's own reports, open until acted on", async () => {
    const mine = await app.request({ method: 'GET', url: '/v1/reports', token: reporter.token });
    assert.equal(mine.statusCode, 200);
    const reports = mine.json().data as { subject: { type: string; id: string }; status: string; outcome: string | null; note: string | null }[];
    assert.deepEqual(reports.map((r) => r.subject.type).sort(), ['account', 'agent', 'comment', 'post']);
    assert.ok(reports.every((r) => r.status === 'open' && r.outcome === null));
    assert.equal(reports.find((r) => r.subject.type === 'post')?.note, 'Selling followers');
    assert.deepEqual((await app.request({ method: 'GET', url: '/v1/reports', token: author.token })).json().data, []);
    expectError(await app.request({ method: 'GET', url: '/v1/reports' }), 401, 'UNAUTHORIZED');
  });

  it('an account files at most REPORTS_PER_ACCOUNT_PER_HOUR reports an hour', async () => {
    const busy = await app.signup();
    const targets = await Promise.all(Array.from({ length: REPORTS_PER_HOUR + 1 }, () => app.signup()));
    for (const target of targets.slice(0, REPORTS_PER_HOUR))
      assert.equal((await report(busy.token, { type: 'account', id: target.accountId })).statusCode, 201);
    const refused = expectError(await report(busy.token, { type: 'account', id: targets.at(-1)!.accountId }), 429, 'RATE_LIMITED');
    assert.match(refused.message, new RegExp(`${REPORTS_PER_HOUR} reports an hour`));
  });
});

describe('the queue, actions, the audit log and appeals', () => {
  let admin: { token: string; accountId: string };
  let moderator: { token: string; accountId: string };
  let author: SocialUser;
  let reporters: SocialUser[];
  let postId: string;
  let reportIds: string[];
  const act = (token: string | null, body: unknown) => app.request({ method: 'POST', url: '/v1/admin/actions', token, body });

  before(async () => {
    admin = await app.signup();
    moderator = await app.signup();
    await command('grant', await emailOf(admin.token));
    await command('grant', await emailOf(moderator.token), '--role', 'moderator');
    author = await socialUser(app);
    reporters = [await socialUser(app), await socialUser(app)];
    postId = (await createPost(app, author.token, 'Totally not a scam')).id;
    reportIds = [];
    for (const [i, reporter] of reporters.entries())
      reportIds.push((await report(reporter.token, { type: 'post', id: postId }, i === 0 ? 'spam' : 'abuse', 'a scam')).json().data.id);
  });

  it('moderator routes: 401 without a credential, 403 without a role, open to moderators and admins', async () => {
    for (const [method, url] of [
      ['GET', '/v1/admin/reports'],
      ['POST', '/v1/admin/actions'],
      ['GET', '/v1/admin/actions'],
      ['GET', '/v1/admin/appeals'],
      ['POST', '/v1/admin/appeals/x'],
    ] as const) {
      expectError(await app.request({ method, url, body: { junk: 1 } }), 401, 'UNAUTHORIZED');
      expectError(await app.request({ method, url, token: author.token, body: { junk: 1 } }), 403, 'FORBIDDEN');
    }
    for (const token of [admin.token, moderator.token]) assert.equal((await app.request({ method: 'GET', url: '/v1/admin/actions', token })).statusCode, 200);
  });

  it('the queue groups open reports by subject, with how many reported it, why, and whose it is', async () => {
    const queue = await app.request({ method: 'GET', url: '/v1/admin/reports?status=open&limit=100', token: moderator.token });
    assert.equal(queue.statusCode, 200, queue.body);
    const entry = (
      queue.json().data as {
        subject: { id: string; summary: string; exists: boolean };
        reporters: number;
        reasons: Record<string, number>;
        owner: { accountId: string; createdAt: string };
      }[]
    ).find((e) => e.subject.id === postId)!;
    assert.equal(entry.reporters, 2);
    assert.deepEqual(entry.reasons, { spam: 1, abuse: 1 });
    assert.equal(entry.subject.exists, true);
    assert.match(entry.subject.summary, /Totally not a scam/);
    assert.equal(entry.owner.accountId, author.accountId);
    assert.ok(entry.owner.createdAt);
    expectError(await app.request({ method: 'GET', url: '/v1/admin/reports?status=closed', token: moderator.token }), 400, 'BAD_REQUEST');
  });

  it('bad actions are 400, unknown subjects 404, wrong states 409', async () => {
    const post = { type: 'post', id: postId };
    expectError(await act(moderator.token, { action: 'hide', subject: post }), 400, 'BAD_REQUEST');
    expectError(await act(moderator.token, { action: 'hide', subject: post, reason: '' }), 400, 'BAD_REQUEST');
    expectError(await act(moderator.token, { action: 'hide', subject: post, reason: 'x'.repeat(1001) }), 400, 'BAD_REQUEST');
    expectError(await act(moderator.token, { action: 'explode', subject: post, reason: 'why' }), 400, 'BAD_REQUEST');
    expectError(await act(moderator.token, { action: 'suspend', subject: post, reason: 'why' }), 400, 'BAD_REQUEST');
    expectError(
      await act(moderator.token, { action: 'hide', subject: { type: 'post', id: '00000000-0000-4000-8000-000000000000' }, reason: 'why' }),
      404,
      'NOT_FOUND',
    );
    expectError(await act(moderator.token, { action: 'restore', subject: post, reason: 'why' }), 409, 'CONFLICT');
    expectError(await act(moderator.token, { action: 'dismiss', subject: { type: 'account', id: admin.accountId }, reason: 'why' }), 409, 'CONFLICT');
    const otherPost = (await createPost(app, author.token, 'Another post')).id;
    expectError(await act(moderator.token, { action: 'hide', subject: { type: 'post', id: otherPost }, reason: 'why', reportIds }), 400, 'BAD_REQUEST');
  });

  it('hiding resolves the reports, tells the author why, and lands in the audit log', async () => {
    const hidden = await act(moderator.token, { action: 'hide', subject: { type: 'post', id: postId }, reason: 'Scam links' });
    assert.equal(hidden.statusCode, 201, hidden.body);
    const action = hidden.json().data;
    assert.deepEqual([action.action, action.moderatorId, action.subjectOwnerId, action.reason], ['hide', moderator.accountId, author.accountId, 'Scam links']);
    assert.deepEqual([...action.reportIds].sort(), [...reportIds].sort());
    expectError(await act(moderator.token, { action: 'hide', subject: { type: 'post', id: postId }, reason: 'again' }), 409, 'CONFLICT');

    const mine = (await app.request({ method: 'GET', url: '/v1/reports', token: reporters[0]!.token })).json().data as { status: string; outcome: string }[];
    assert.deepEqual([mine[0]!.status, mine[0]!.outcome], ['resolved', 'hide']);
    const open = (await app.request({ method: 'GET', url: '/v1/admin/reports?limit=100', token: moderator.token })).json().data as {
      subject: { id: string };
    }[];
    assert.ok(!open.some((e) => e.subject.id === postId));
    const resolved = (await app.request({ method: 'GET', url: '/v1/admin/reports?status=resolved&limit=100', token: admin.token })).json().data as {
      subject: { id: string; states: { state: string }[] };
    }[];
    assert.deepEqual(
      resolved.find((e) => e.subject.id === postId)?.subject.states.map((s) => s.state),
      ['hidden'],
    );

    const notices = (await app.request({ method: 'GET', url: '/v1/social/notifications', token: author.token })).json().notifications as {
      type: string;
      postId: string;
      postBody: string;
    }[];
    const notice = notices.find((n) => n.type === 'moderation')!;
    assert.equal(notice.postId, postId);
    assert.match(notice.postBody, /hidden by the moderators\. Reason: Scam links/);

    const log = (await app.request({ method: 'GET', url: `/v1/admin/actions?subjectType=post&subjectId=${postId}`, token: admin.token })).json().data as {
      id: string;
    }[];
    assert.deepEqual(
      log.map((a) => a.id),
      [action.id],
    );
    expectError(await app.request({ method: 'GET', url: `/v1/admin/actions?subjectType=post`, token: admin.token }), 400, 'BAD_REQUEST');
  });

  it('the person concerned appeals once; another moderator decides; a reversal undoes the action', async () => {
    const [action] = (await app.request({ method: 'GET', url: `/v1/admin/actions?subjectType=post&subjectId=${postId}`, token: admin.token })).json().data;
    const appeal = (token: string, body: unknown) => app.request({ method: 'POST', url: '/v1/appeals', token, body });
    expectError(await appeal(reporters[0]!.token, { actionId: action.id, note: 'Not mine but unfair' }), 404, 'NOT_FOUND');
    expectError(await appeal(author.token, { actionId: action.id, note: '' }), 400, 'BAD_REQUEST');
    const filed = await appeal(author.token, { actionId: action.id, note: 'It was a joke' });
    assert.equal(filed.statusCode, 201, filed.body);
    const appealId = filed.json().data.id;
    expectError(await appeal(author.token, { actionId: action.id, note: 'Again' }), 409, 'CONFLICT');

    const pending = (await app.request({ method: 'GET', url: '/v1/admin/appeals?status=open', token: moderator.token })).json().data as {
      id: string;
      action: { id: string };
    }[];
    assert.equal(pending.find((a) => a.id === appealId)?.action.id, action.id);
    const decide = (token: string, body: unknown) => app.request({ method: 'POST', url: `/v1/admin/appeals/${appealId}`, token, body });
    const own = expectError(await decide(moderator.token, { decision: 'reverse', reason: 'Fair' }), 403, 'FORBIDDEN');
    assert.match(own.message, /another moderator/);
    expectError(await decide(admin.token, { decision: 'maybe', reason: 'Hmm' }), 400, 'BAD_REQUEST');
    expectError(
      await app.request({ method: 'POST', url: '/v1/admin/appeals/no-such-appeal', token: admin.token, body: { decision: 'uphold', reason: 'x' } }),
      404,
      'NOT_FOUND',
    );
    const reversed = await decide(admin.token, { decision: 'reverse', reason: 'It was a joke indeed' });
    assert.equal(reversed.statusCode, 200, reversed.body);
    assert.equal(reversed.json().data.status, 'reversed');
    assert.equal(reversed.json().data.reversal.action, 'restore');
    expectError(await decide(admin.token, { decision: 'uphold', reason: 'Changed my mind' }), 409, 'CONFLICT');
    const log = (await app.request({ method: 'GET', url: `/v1/admin/actions?subjectType=post&subjectId=${postId}`, token: admin.token })).json().data as {
      action: string;
    }[];
    assert.deepEqual(
      log.map((a) => a.action),
      ['restore', 'hide'],
    );
    const notices = (await app.request({ method: 'GET', url: '/v1/social/notifications', token: author.token })).json().notifications as {
      type: string;
      postBody: string;
    }[];
    assert.match(notices[0]!.postBody, /restored by the moderators\. Reason: Appeal granted: It was a joke indeed/);
  });
});

describe('what actions do', () => {
  let moderator: { token: string; accountId: string };
  before(async () => {
    moderator = await app.signup();
    await command('grant', await emailOf(moderator.token), '--role', 'moderator');
  });
  const act = (body: unknown) => app.request({ method: 'POST', url: '/v1/admin/actions', token: moderator.token, body });

  it("a suspended account's sessions and keys, and its agents' keys, answer 401 ACCOUNT_SUSPENDED from the next request; login says so", async () => {
    const person = await app.signup();
    const email = await emailOf(person.token);
    const personKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'k' } })).json().data.key as string;
    const agent = await registerAgent(app, person.token);
    const agentKey = await agentKeyOf(person.token, agent.id);
    // Used once each first, so each is in the credential cache when the suspension comes.
    for (const token of [person.token, personKey, agentKey])
      assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).statusCode, 200);

    const suspended = await act({ action: 'suspend', subject: { type: 'account', id: person.accountId }, reason: 'Spam network' });
    assert.equal(suspended.statusCode, 201, suspended.body);
    for (const token of [person.token, personKey, agentKey]) {
      const refused = expectError(await app.request({ method: 'GET', url: '/v1/auth/account', token }), 401, 'ACCOUNT_SUSPENDED');
      assert.match(refused.message, /suspended by the moderators: Spam network/);
    }
    const login = expectError(
      await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: signupPassword } }),
      401,
      'ACCOUNT_SUSPENDED',
    );
    assert.match(login.message, /Spam network/);
    // A wrong password learns nothing about the suspension.
    expectError(await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: 'wrong password!' } }), 401, 'UNAUTHORIZED');

    assert.equal((await act({ action: 'unsuspend', subject: { type: 'account', id: person.accountId }, reason: 'Cleared' })).statusCode, 201);
    for (const token of [person.token, personKey, agentKey])
      assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).statusCode, 200);
    assert.equal((await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: signupPassword } })).statusCode, 200);
  });

  it('a hidden post is 404 to everyone but its author (marked removed, with the reason) and moderators, and gone from every list', async () => {
    const author = await socialUser(app);
    const reader = await socialUser(app);
    const tag = `hidden${Date.now().toString(36)}`;
    const post = await createPost(app, author.token, `Hidden soon #${tag} zanzibarword`);
    const other = await createPost(app, author.token, 'Stays visible');
    const reply = await comment(app, reader.token, other.id, 'A comment to hide');
    const like = await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/vote`, token: reader.token, body: { value: 1 } });
    assert.equal(like.statusCode, 200);
    const listed = async (url: string, token: string | null = reader.token) => (await app.request({ method: 'GET', url, token })).body.includes(post.id);
    const lists = [
      '/v1/social/posts?feed=foryou&limit=100',
      `/v1/social/users/${author.username}/posts?limit=100`,
      '/v1/social/search?q=zanzibarword&tab=posts',
      '/v1/social/trending',
    ];
    for (const url of lists) assert.ok(await listed(url), `listed before hiding: ${url}`);
    const authorNotices = async () =>
      (await app.request({ method: 'GET', url: '/v1/social/notifications', token: author.token })).json().notifications as { type: string; postId: string }[];
    assert.ok((await authorNotices()).some((n) => n.type === 'like' && n.postId === post.id));

    assert.equal((await act({ action: 'hide', subject: { type: 'post', id: post.id }, reason: 'Off-topic spam' })).statusCode, 201);
    assert.equal((await act({ action: 'hide', subject: { type: 'comment', id: reply.id }, reason: 'Rude' })).statusCode, 201);

    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: reader.token }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}` }), 404, 'NOT_FOUND');
    const own = await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: author.token });
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(own.json().post.removed, { reason: 'Off-topic spam' });
    const asModerator = await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: moderator.token });
    assert.deepEqual(asModerator.json().post.removed, { reason: 'Off-topic spam' });
    for (const url of lists) assert.ok(!(await listed(url)), `still listed after hiding: ${url}`);
    assert.ok(!(await listed(`/v1/social/users/${author.username}/posts?limit=100`, author.token)));
    const notices = await authorNotices();
    assert.ok(!notices.some((n) => n.type === 'like' && n.postId === post.id), 'the like notification of the hidden post is gone');
    assert.ok(notices.some((n) => n.type === 'moderation' && n.postId === post.id));
    const comments = (await app.request({ method: 'GET', url: `/v1/social/posts/${other.id}`, token: reader.token })).json().comments as { id: string }[];
    assert.ok(!comments.some((c) => c.id === reply.id), 'the hidden comment is gone');
    // A hidden post cannot be reported by those it is hidden from: it is not there for them.
    expectError(await report(reader.token, { type: 'post', id: post.id }), 404, 'NOT_FOUND');

    assert.equal((await act({ action: 'restore', subject: { type: 'post', id: post.id }, reason: 'On appeal' })).statusCode, 201);
    const back = await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: reader.token });
    assert.equal(back.statusCode, 200);
    assert.equal(back.json().post.removed, undefined);
    assert.ok(await listed(`/v1/social/users/${author.username}/posts?limit=100`));
  });

  it('a delisted agent leaves discovery (on every node), the standard listings and the change feed, refuses tasks, and only its owner sees why', async () => {
    const owner = await app.signup();
    const requester = await app.signup();
    const word = `zorblax${Date.now().toString(36)}`;
    const agent = await registerAgent(app, owner.token, {
      description: `Translates ${word} manuals into plain words.`,
      protocols: ['mcp'],
      endpoint: 'https://delist.example.test/mcp',
    });
    const other = await otherNode(app, { sqliteFile: true });
    try {
      const changesBefore = (await app.request({ method: 'GET', url: '/v1/agents/changes?limit=500' })).json();
      let since = changesBefore.next as string;
      while ((await app.request({ method: 'GET', url: `/v1/agents/changes?since=${since}&limit=500` })).json().hasMore)
        since = (await app.request({ method: 'GET', url: `/v1/agents/changes?since=${since}&limit=500` })).json().next;
      const standardLists = ['/.well-known/ai-catalog.json', '/ard/agents', `/v0.1/servers?search=${agent.slug}`];
      const listedIn = async (url: string) => (await app.request({ method: 'GET', url })).body.includes(agent.slug);
      for (const url of standardLists) assert.ok(await listedIn(url), `listed before: ${url}`);
      assert.ok((await discovered(app, word)).includes(agent.id));
      assert.ok((await discovered(other, word)).includes(agent.id), 'the other node found it before');

      const delisted = await act({ action: 'delist', subject: { type: 'agent', id: agent.id }, reason: 'Impersonates a vendor' });
      assert.equal(delisted.statusCode, 201, delisted.body);

      // Discovery on either node reads the change at its next search.
      assert.ok(!(await discovered(app, word)).includes(agent.id));
      assert.ok(!(await discovered(other, word)).includes(agent.id), 'the other node still lists it');
      for (const url of standardLists) assert.ok(!(await listedIn(url)), `still listed: ${url}`);
      const changes = (await app.request({ method: 'GET', url: `/v1/agents/changes?since=${since}&limit=500` })).json().data as {
        id: string;
        deleted: boolean;
      }[];
      assert.deepEqual(
        changes.filter((c) => c.id === agent.id).map((c) => c.deleted),
        [true],
        'the change feed carries a removal',
      );

      expectError(await agentView(agent.id, requester.token), 404, 'NOT_FOUND');
      expectError(await agentView(agent.id, null), 404, 'NOT_FOUND');
      const own = await agentView(agent.id, owner.token);
      assert.equal(own.statusCode, 200);
      assert.deepEqual({ ...own.json().data.listing, since: undefined }, { state: 'delisted', reason: 'Impersonates a vendor', since: undefined });
      // Its public page (read by slug) opens for its owner and for the moderators following the queue's link, for nobody else.
      const page = (token: string | null) => app.request({ method: 'GET', url: `/v1/discover/${agent.slug}`, token });
      expectError(await page(requester.token), 404, 'NOT_FOUND');
      expectError(await page(null), 404, 'NOT_FOUND');
      for (const token of [owner.token, moderator.token]) {
        const shown = await page(token);
        assert.equal(shown.statusCode, 200, shown.body);
        assert.equal(shown.json().data.listing.state, 'delisted');
      }

      const task = expectError(
        await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body: { description: 'Translate this', agentId: agent.id } }),
        409,
        'AGENT_NOT_LISTED',
      );
      assert.match(task.message, /is not listed \(it was delisted by the moderators\)/);

      // The public registry log records the delisting with its category, not the moderators' words.
      const history = (
        await agentView(agent.id, owner.token).then(() => app.request({ method: 'GET', url: `/v1/agents/${agent.id}/history`, token: owner.token }))
      ).json().data.events as { event: string; values: Record<string, unknown> }[];
      assert.deepEqual(history.at(-1), { ...history.at(-1), event: 'delisted', values: { category: 'other' } });

      assert.equal((await act({ action: 'relist', subject: { type: 'agent', id: agent.id }, reason: 'Verified the vendor' })).statusCode, 201);
      assert.ok((await discovered(other, word)).includes(agent.id), 'relisted on the other node');
      for (const url of standardLists) assert.ok(await listedIn(url), `listed again: ${url}`);
      assert.equal((await agentView(agent.id, requester.token)).json().data.listing.state, 'listed');
      const events = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/history`, token: owner.token })).json().data.events as {
        event: string;
      }[];
      assert.equal(events.at(-1)!.event, 'relisted');
    } finally {
      await other.close();
    }
  });

  it("a suspension delists the account's agents and ends its event streams on another node; lifting it relists exactly those", async () => {
    const person = await app.signup();
    const word = `quillop${Date.now().toString(36)}`;
    const kept = await registerAgent(app, person.token, { description: `Sorts ${word} receipts.` });
    const delistedBefore = await registerAgent(app, person.token, { description: `Files ${word} invoices.` });
    await act({ action: 'delist', subject: { type: 'agent', id: delistedBefore.id }, reason: 'Spam' });
    const node = await otherNode(app);
    try {
      // On SQLite the other node is this app itself (one node per database file).
      if (!node.server.server.listening) await node.server.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(node.server.server.address() as AddressInfo).port}`;
      const stream = await openEvents(url, person.token);
      await stream.until('the starting id', (events) => events.length > 0);

      assert.equal((await act({ action: 'suspend', subject: { type: 'account', id: person.accountId }, reason: 'Spam network' })).statusCode, 201);
      await waitFor('the stream on the other node to end', () => stream.ended());
      assert.ok(!(await discovered(app, word)).includes(kept.id));
      assert.deepEqual((await app.request({ method: 'GET', url: `/v1/agents/${kept.id}`, token: moderator.token })).statusCode, 404);

      assert.equal((await act({ action: 'unsuspend', subject: { type: 'account', id: person.accountId }, reason: 'Cleared' })).statusCode, 201);
      const found = await discovered(app, word);
      assert.ok(found.includes(kept.id), 'the agent the suspension delisted is back');
      assert.ok(!found.includes(delistedBefore.id), 'the one delisted before the suspension stays out');
      assert.equal((await agentView(delistedBefore.id, person.token)).json().data.listing.state, 'delisted');
    } finally {
      await node.close();
    }
  });

  it("a limited account's posts leave the for-you feed, search and trending, and its agents leave discovery; unlimit brings them back", async () => {
    const author = await socialUser(app);
    const reader = await socialUser(app);
    const word = `vexnor${Date.now().toString(36)}`;
    const post = await createPost(app, author.token, `Limited soon ${word}`);
    await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/vote`, token: reader.token, body: { value: 1 } });
    const agent = await registerAgent(app, author.token, { description: `Counts ${word} sheep.` });
    const lists = ['/v1/social/posts?feed=foryou&limit=100', `/v1/social/search?q=${word}&tab=posts`, '/v1/social/trending'];
    const listed = async (url: string) => (await app.request({ method: 'GET', url, token: reader.token })).body.includes(post.id);
    for (const url of lists) assert.ok(await listed(url), `listed before: ${url}`);
    assert.ok((await discovered(app, word)).includes(agent.id));

    const authorAccount = (await app.request({ method: 'GET', url: '/v1/auth/account', token: author.token })).json().data.id as string;
    assert.equal((await act({ action: 'limit', subject: { type: 'account', id: authorAccount }, reason: 'Too much promotion' })).statusCode, 201);
    for (const url of lists) assert.ok(!(await listed(url)), `still listed: ${url}`);
    assert.ok(await listed(`/v1/social/users/${author.username}/posts?limit=100`), 'the profile keeps them');
    assert.ok(!(await discovered(app, word)).includes(agent.id));
    assert.equal((await agentView(agent.id, reader.token)).statusCode, 200, 'its page stays');

    assert.equal((await act({ action: 'unlimit', subject: { type: 'account', id: authorAccount }, reason: 'Better now' })).statusCode, 201);
    for (const url of lists) assert.ok(await listed(url), `listed again: ${url}`);
    assert.ok((await discovered(app, word)).includes(agent.id));
  });
});

describe('instance policies and approval', () => {
  let admin: { token: string; accountId: string };
  let moderator: { token: string; accountId: string };
  let person: { token: string; accountId: string };
  before(async () => {
    admin = await app.signup();
    moderator = await app.signup();
    person = await app.signup();
    await command('grant', await emailOf(admin.token));
    await command('grant', await emailOf(moderator.token), '--role', 'moderator');
  });
  const policies = (token: string | null, body?: unknown) =>
    app.request({ method: body === undefined ? 'GET' : 'PUT', url: '/v1/admin/policies', token, ...(body === undefined ? {} : { body }) });
  after(async () => {
    await policies(admin.token, { agentListing: 'open', signUp: 'open' });
  });

  it('moderators read the policies, only admins change them; 401 without a credential, 403 without a role, 400 on bad values', async () => {
    const read = await policies(moderator.token);
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json().data, { agentListing: 'open', signUp: 'open', newAccountFraction: 0.25, autoHoldReports: 0 });
    expectError(await policies(null), 401, 'UNAUTHORIZED');
    expectError(await policies(person.token), 403, 'FORBIDDEN');
    expectError(await policies(moderator.token, { signUp: 'closed' }), 403, 'FORBIDDEN');
    expectError(await policies(null, { signUp: 'closed' }), 401, 'UNAUTHORIZED');
    for (const bad of [
      { signUp: 'maybe' },
      { newAccountFraction: 0 },
      { newAccountFraction: 1.5 },
      { autoHoldReports: -1 },
      { autoHoldReports: 1.5 },
      {},
      { other: 1 },
    ])
      expectError(await policies(admin.token, bad), 400, 'BAD_REQUEST');
    const changed = await policies(admin.token, { newAccountFraction: 0.5, autoHoldReports: 3 });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().data, { agentListing: 'open', signUp: 'open', newAccountFraction: 0.5, autoHoldReports: 3 });
    assert.deepEqual((await policies(moderator.token)).json(), changed.json());
  });

  it('the automatic hold hides a post reported by that many distinct accounts, pending review; its reports stay open', async () => {
    await policies(admin.token, { autoHoldReports: 2 });
    try {
      const author = await socialUser(app);
      const post = await createPost(app, author.token, 'Reported by two people');
      const reporters = [await app.signup(), await app.signup()];
      const reportIt = (token: string) =>
        app.request({ method: 'POST', url: '/v1/reports', token, body: { subject: { type: 'post', id: post.id }, reason: 'spam' } });
      assert.equal((await reportIt(reporters[0]!.token)).statusCode, 201);
      // The same reporter again does not count twice.
      assert.equal((await reportIt(reporters[0]!.token)).statusCode, 200);
      assert.equal((await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: person.token })).statusCode, 200);
      assert.equal((await reportIt(reporters[1]!.token)).statusCode, 201);
      expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: person.token }), 404, 'NOT_FOUND');
      const own = (await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: author.token })).json().post;
      assert.match(own.removed.reason, /Held automatically pending review: reported by 2 people/);
      const queue = (await app.request({ method: 'GET', url: '/v1/admin/reports?limit=100', token: moderator.token })).json().data as {
        subject: { id: string; states: { state: string }[] };
        reporters: number;
      }[];
      const entry = queue.find((e) => e.subject.id === post.id);
      assert.deepEqual({ reporters: entry?.reporters, states: entry?.subject.states.map((x) => x.state) }, { reporters: 2, states: ['hidden'] });
    } finally {
      await policies(admin.token, { autoHoldReports: 0 });
    }
  });

  it('sign-up closed refuses new accounts with SIGN_UP_CLOSED', async () => {
    await policies(admin.token, { signUp: 'closed' });
    const refused = expectError(
      await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: `closed-${Date.now()}@example.test`, password: signupPassword } }),
      403,
      'SIGN_UP_CLOSED',
    );
    assert.match(refused.message, /sign-up is closed/);
    await policies(admin.token, { signUp: 'open' });
    assert.equal(
      (await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email: `open-${Date.now()}@example.test`, password: signupPassword } })).statusCode,
      201,
    );
  });

  it('under approval a new or changed agent waits, its owner sees that, and a moderator approves or rejects it', async () => {
    await policies(admin.token, { agentListing: 'approval' });
    const word = `plimsy${Date.now().toString(36)}`;
    const agent = await registerAgent(app, person.token, { description: `Grades ${word} essays.` });
    assert.equal(agent.listing && (agent.listing as { state: string }).state, 'pending');
    expectError(await agentView(agent.id, moderator.token), 404, 'NOT_FOUND');
    assert.ok(!(await discovered(app, word)).includes(agent.id));

    expectError(await app.request({ method: 'GET', url: '/v1/admin/pending' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/admin/pending', token: person.token }), 403, 'FORBIDDEN');
    const pending = (await app.request({ method: 'GET', url: '/v1/admin/pending', token: moderator.token })).json().items as {
      subject: { id: string };
      owner: string;
      reason: string;
    }[];
    const item = pending.find((i) => i.subject.id === agent.id);
    assert.deepEqual({ owner: item?.owner, reason: item?.reason }, { owner: person.accountId, reason: 'new' });

    const decide = (action: string, id = agent.id) =>
      app.request({ method: 'POST', url: '/v1/admin/actions', token: moderator.token, body: { action, subject: { type: 'agent', id }, reason: 'Checked' } });
    expectError(await decide('approve', 'no-such-agent'), 404, 'NOT_FOUND');
    assert.equal((await decide('approve')).statusCode, 201);
    expectError(await decide('approve'), 409, 'CONFLICT');
    assert.equal((await agentView(agent.id, moderator.token)).json().data.listing.state, 'listed');
    assert.ok((await discovered(app, word)).includes(agent.id));

    // A change of its description makes it wait again; a rejection keeps it out, and its owner sees why.
    await app.request({ method: 'PATCH', url: `/v1/agents/${agent.id}`, token: person.token, body: { description: `Grades ${word} essays and poems.` } });
    const again = (await app.request({ method: 'GET', url: '/v1/admin/pending', token: moderator.token })).json().items as {
      subject: { id: string };
      reason: string;
    }[];
    assert.equal(again.find((i) => i.subject.id === agent.id)?.reason, 'changed');
    assert.ok(!(await discovered(app, word)).includes(agent.id));
    assert.equal((await decide('reject')).statusCode, 201);
    assert.deepEqual(
      { ...(await agentView(agent.id, person.token)).json().data.listing, since: undefined },
      { state: 'rejected', reason: 'Checked', since: undefined },
    );
    expectError(await agentView(agent.id, moderator.token), 404, 'NOT_FOUND');
  });
});
