/**
 * Moderation of accounts (docs/moderation.md): sign-up approval, the new-account budget, the
 * automatic hold of agents and accounts, reporting a person from their profile and the links the
 * queue gives. One app for the file (with Redis, so the budget is the one every node shares).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdminCommand } from '../../src/modules/moderation/index.ts';
import { expectError, otherNode, signupPassword, startTestApp, TestClock, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { createPost, socialUser, uniqueUsername, type SocialUser } from '../helpers/social.ts';

// 200 requests a minute from one address, so 4 (2%) is a new account's budget for posts, comments and agents.
const ENV = {
  RATE_LIMIT_MAX: '200',
  NEW_ACCOUNT_FRACTION: '0.02',
  REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  CREDENTIAL_RATE_LIMIT_MAX: '1000',
};

let app: TestApp;
let node2: TestApp;
const clock = new TestClock();
let admin: { token: string; accountId: string };
let moderator: { token: string; accountId: string };
/** A person whose account is days old when the tests run. */
let veteran: SocialUser;

const policies = (body: unknown) => app.request({ method: 'PUT', url: '/v1/admin/policies', token: admin.token, body });
const act = (action: string, type: string, id: string, reason: unknown = 'Checked', token = moderator.token) =>
  app.request({ method: 'POST', url: '/v1/admin/actions', token, body: { action, subject: { type, id }, reason } });
const pendingItems = async () =>
  (await app.request({ method: 'GET', url: '/v1/admin/pending', token: moderator.token })).json().items as {
    subject: { type: string; id: string };
    name: string;
    handle: string | null;
    reason: string;
  }[];
const report = (token: string, type: string, id: string) =>
  app.request({ method: 'POST', url: '/v1/reports', token, body: { subject: { type, id }, reason: 'spam' } });
const signupAt = (node: TestApp, email: string) => node.request({ method: 'POST', url: '/v1/auth/signup', body: { email, password: signupPassword } });
const newEmail = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.test`;

before(async () => {
  app = await startTestApp(ENV, { clock });
  // The same clock on both nodes: an account's age is read against it.
  node2 = await otherNode(app, { overrides: { clock } });
  admin = await app.signup();
  moderator = await app.signup();
  const emailOf = async (token: string) => (await app.request({ method: 'GET', url: '/v1/auth/account', token })).json().data.email as string;
  await runAdminCommand(['grant', await emailOf(admin.token)], app.database.db, app.clock);
  await runAdminCommand(['grant', await emailOf(moderator.token), '--role', 'moderator'], app.database.db, app.clock);
  veteran = await socialUser(app);
  // The moderators' own accounts are days old: the new-account budget is not theirs.
  clock.advance(48 * 3600_000);
});
after(async () => {
  await node2?.close();
  await app?.close();
});

describe('sign-up approval', () => {
  before(async () => assert.equal((await policies({ signUp: 'approval' })).statusCode, 200));
  after(async () => assert.equal((await policies({ signUp: 'open' })).statusCode, 200));

  it('a new account signs in and sees that it waits; it sets up its profile but cannot post, comment, register agents, submit tasks or report', async () => {
    const signed = await signupAt(app, newEmail('waiting'));
    assert.equal(signed.statusCode, 201, signed.body);
    const { token, account } = signed.json().data as { token: string; account: { id: string; waitingForApproval: boolean } };
    assert.equal(account.waitingForApproval, true);
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).json().data.waitingForApproval, true);
    // Reading works.
    assert.equal((await app.request({ method: 'GET', url: '/v1/social/posts', token })).statusCode, 200);
    const username = uniqueUsername();
    const profile = await app.request({ method: 'POST', url: '/v1/users', token, body: { username, displayName: 'Waiting Person' } });
    assert.equal(profile.statusCode, 201, profile.body);

    const post = await createPost(app, veteran.token, 'A post to comment on');
    const refused = [
      await app.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: 'Hello' } }),
      await app.request({ method: 'POST', url: `/v1/social/posts/${post.id}/comments`, token, body: { body: 'Hi' } }),
      await app.request({ method: 'POST', url: '/v1/agents', token, body: { name: 'Waiting agent', description: 'x', endpoint: 'https://w.example.test/a' } }),
      await app.request({ method: 'POST', url: '/v1/tasks', token, body: { description: 'Do it', agentId: 'anything' } }),
      await report(token, 'post', post.id),
    ];
    for (const answer of refused) assert.match(expectError(answer, 403, 'ACCOUNT_PENDING').message, /waits for a moderator to approve it/);
    // Another node knows as well (the standing is read with the credential, not kept by one node).
    expectError(await node2.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: 'Hello' } }), 403, 'ACCOUNT_PENDING');

    const item = (await pendingItems()).find((i) => i.subject.id === account.id);
    assert.deepEqual({ type: item?.subject.type, handle: item?.handle, reason: item?.reason }, { type: 'account', handle: username, reason: 'new' });
  });

  it('a moderator approves: from the next request, on every node, the account posts, and it is told', async () => {
    const signed = (await signupAt(app, newEmail('approved'))).json().data as { token: string; account: { id: string } };
    const { token } = signed;
    const id = signed.account.id;
    await app.request({ method: 'POST', url: '/v1/users', token, body: { username: uniqueUsername(), displayName: 'Soon Approved' } });
    // Both nodes hold the waiting credential in their caches before the decision.
    expectError(await node2.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: 'Early' } }), 403, 'ACCOUNT_PENDING');
    expectError(await app.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: 'Early' } }), 403, 'ACCOUNT_PENDING');

    expectError(
      await app.request({ method: 'POST', url: '/v1/admin/actions', body: { action: 'approve', subject: { type: 'account', id }, reason: 'ok' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await act('approve', 'account', id, 'ok', token), 403, 'FORBIDDEN');
    expectError(await act('approve', 'account', id, ''), 400, 'BAD_REQUEST');
    expectError(await act('approve', 'account', 'no-such-account'), 404, 'NOT_FOUND');
    // An account that never waited (the moderator's own colleague) is not waiting: 409.
    expectError(await act('approve', 'account', admin.accountId), 409, 'CONFLICT');
    const approved = await act('approve', 'account', id, 'Looks like a real person');
    assert.equal(approved.statusCode, 201, approved.body);
    expectError(await act('approve', 'account', id), 409, 'CONFLICT');
    assert.ok(!(await pendingItems()).some((i) => i.subject.id === id));

    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token })).json().data.waitingForApproval, false);
    assert.equal((await node2.request({ method: 'POST', url: '/v1/social/posts', token, body: { body: 'Approved at last' } })).statusCode, 201);
    const notices = (await app.request({ method: 'GET', url: '/v1/social/notifications', token })).json().notifications as { type: string; postBody: string }[];
    assert.match(notices.find((n) => n.type === 'moderation')?.postBody ?? '', /Your account was approved by the moderators.*Reason: Looks like a real person/);
  });

  it('a rejected account cannot sign in and is told why; a wrong password learns nothing', async () => {
    const email = newEmail('rejected');
    const signed = (await signupAt(app, email)).json().data as { token: string; account: { id: string } };
    assert.equal((await act('reject', 'account', signed.account.id, 'A spam wave')).statusCode, 201);
    const session = expectError(await node2.request({ method: 'GET', url: '/v1/auth/account', token: signed.token }), 401, 'ACCOUNT_REJECTED');
    assert.match(session.message, /not approved by the moderators: A spam wave/);
    const login = expectError(await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: signupPassword } }), 401, 'ACCOUNT_REJECTED');
    assert.match(login.message, /A spam wave/);
    expectError(await app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password: 'not the password' } }), 401, 'UNAUTHORIZED');
    expectError(await act('approve', 'account', signed.account.id), 409, 'CONFLICT');
  });

  it('accounts made before the policy changed are not held', async () => {
    await policies({ signUp: 'open' });
    const open = await socialUser(app);
    await policies({ signUp: 'approval' });
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: open.token })).json().data.waitingForApproval, false);
    assert.equal((await app.request({ method: 'POST', url: '/v1/social/posts', token: open.token, body: { body: 'Still fine' } })).statusCode, 201);
  });
});

describe('new-account budget', () => {
  it('in its first day an account posts, comments and registers agents within the fraction of the ordinary limit; links count, on every node', async () => {
    const fresh = await socialUser(app);
    const post = await createPost(app, fresh.token, 'One');
    // Two links: this post costs three of the four.
    assert.equal(
      (
        await node2.request({
          method: 'POST',
          url: '/v1/social/posts',
          token: fresh.token,
          body: { body: 'See https://a.example.test and http://b.example.test' },
        })
      ).statusCode,
      201,
    );
    const refused = expectError(
      await node2.request({ method: 'POST', url: `/v1/social/posts/${post.id}/comments`, token: fresh.token, body: { body: 'A comment' } }),
      429,
      'RATE_LIMITED',
    );
    assert.match(refused.message, /first 24 hours an account may post, comment and register agents 4 times in 60 s/);
    expectError(
      await app.request({ method: 'POST', url: '/v1/agents', token: fresh.token, body: { name: 'x', description: 'y', endpoint: 'https://z.example.test' } }),
      429,
      'RATE_LIMITED',
    );
    // Reading and other writes are not part of the budget.
    assert.equal((await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}`, token: fresh.token })).statusCode, 200);
    // Someone else, older, is not held back by it.
    assert.equal((await app.request({ method: 'POST', url: '/v1/social/posts', token: veteran.token, body: { body: 'Old hand' } })).statusCode, 201);
  });

  it('a day later the ordinary limits apply', async () => {
    const fresh = await socialUser(app);
    for (let i = 0; i < 4; i++) await createPost(app, fresh.token, `Post ${i}`);
    expectError(await app.request({ method: 'POST', url: '/v1/social/posts', token: fresh.token, body: { body: 'Fifth' } }), 429, 'RATE_LIMITED');
    clock.advance(24 * 3600_000 + 1000);
    assert.equal((await app.request({ method: 'POST', url: '/v1/social/posts', token: fresh.token, body: { body: 'Fifth, a day on' } })).statusCode, 201);
  });
});

describe('automatic hold of agents and accounts, and reporting people', () => {
  before(async () => assert.equal((await policies({ autoHoldReports: 2 })).statusCode, 200));
  after(async () => assert.equal((await policies({ autoHoldReports: 0 })).statusCode, 200));

  it('an agent reported by that many distinct accounts is delisted pending review; the owner is told; the audit log has it', async () => {
    const owner = await socialUser(app);
    const agent = await registerAgent(app, owner.token);
    const [a, b] = [await app.signup(), await app.signup()];
    assert.equal((await report(a.token, 'agent', agent.id)).statusCode, 201);
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: b.token })).statusCode, 200);
    assert.equal((await report(b.token, 'agent', agent.id)).statusCode, 201);
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: a.token }), 404, 'NOT_FOUND');
    const listing = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: owner.token })).json().data.listing;
    assert.equal(listing.state, 'delisted');
    assert.match(listing.reason, /Held automatically pending review: reported by 2 people/);
    const log = (await app.request({ method: 'GET', url: `/v1/admin/actions?subjectType=agent&subjectId=${agent.id}`, token: moderator.token })).json().data;
    assert.deepEqual(
      log.map((x: { action: string; moderatorId: string }) => [x.action, x.moderatorId]),
      [['delist', 'automatic-hold']],
    );
    const notices = (await app.request({ method: 'GET', url: '/v1/social/notifications', token: owner.token })).json().notifications as {
      type: string;
      postBody: string;
    }[];
    assert.match(notices.find((n) => n.type === 'moderation')?.postBody ?? '', /was delisted by the moderators\. Reason: Held automatically/);
    // Its reports stay open in the queue, which links to the agent's page by its slug.
    const queue = (await app.request({ method: 'GET', url: '/v1/admin/reports?limit=100', token: moderator.token })).json().data as {
      subject: { id: string; handle: string | null };
      reporters: number;
    }[];
    const entry = queue.find((e) => e.subject.id === agent.id);
    assert.deepEqual({ reporters: entry?.reporters, handle: entry?.subject.handle }, { reporters: 2, handle: agent.slug });
  });

  it('a person is reported from their profile (by its account id); that many reporters limit the account pending review, never suspend it', async () => {
    const person = await socialUser(app);
    const profile = (await app.request({ method: 'GET', url: `/v1/social/users/${person.username}/profile` })).json().user;
    assert.equal(profile.accountId, person.accountId);
    const [a, b] = [await app.signup(), await app.signup()];
    expectError(
      await app.request({ method: 'POST', url: '/v1/reports', body: { subject: { type: 'account', id: profile.accountId }, reason: 'spam' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await report(person.token, 'account', profile.accountId), 400, 'BAD_REQUEST');
    assert.equal((await report(a.token, 'account', profile.accountId)).statusCode, 201);
    assert.equal((await report(b.token, 'account', profile.accountId)).statusCode, 201);
    const log = (
      await app.request({ method: 'GET', url: `/v1/admin/actions?subjectType=account&subjectId=${person.accountId}`, token: moderator.token })
    ).json().data;
    assert.deepEqual(
      log.map((x: { action: string; moderatorId: string }) => [x.action, x.moderatorId]),
      [['limit', 'automatic-hold']],
    );
    // Limited, not suspended: the person still signs in and posts (their posts leave the shared listings).
    assert.equal((await app.request({ method: 'GET', url: '/v1/auth/account', token: person.token })).statusCode, 200);
    assert.equal((await app.request({ method: 'POST', url: '/v1/social/posts', token: person.token, body: { body: 'Still here' } })).statusCode, 201);
    const queue = (await app.request({ method: 'GET', url: '/v1/admin/reports?limit=100', token: moderator.token })).json().data as {
      subject: { id: string; handle: string | null; states: { state: string }[] };
    }[];
    const entry = queue.find((e) => e.subject.id === person.accountId);
    assert.deepEqual({ handle: entry?.subject.handle, states: entry?.subject.states.map((s) => s.state) }, { handle: person.username, states: ['limited'] });
    // A moderator who agrees keeps the limit and resolves the reports; one who does not unlimits.
    assert.equal((await act('unlimit', 'account', person.accountId, 'Reports were a pile-on')).statusCode, 201);
  });
});
