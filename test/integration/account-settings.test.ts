import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import { registerAgent } from '../helpers/agents.ts';
import { assignedTask, callback, entriesOfTask, pollingAgent } from '../helpers/payments.ts';
import { uploadImage } from '../helpers/images.ts';
import { createPost, socialUser, uniqueUsername } from '../helpers/social.ts';
import { submitTask } from '../helpers/tasks.ts';

const PASSWORD = 'correct horse battery';
const OPERATOR = 'ops-delete@agentry.example.test';

describe('password change and account deletion', () => {
  let app: TestApp;
  before(async () => {
    // Many people sign up here from one address; the per-address limit on credential routes has tests of its own.
    app = await startTestApp({ OPERATOR_EMAILS: OPERATOR, CREDENTIAL_RATE_LIMIT_MAX: '200' });
  });
  after(() => app.close());

  const login = (email: string, password = PASSWORD) => app.request({ method: 'POST', url: '/v1/auth/login', body: { email, password } });
  const changePassword = (token: string | null, body: unknown) => app.request({ method: 'POST', url: '/v1/auth/password', token, body });
  const deleteAccount = (token: string | null, body: unknown) => app.request({ method: 'DELETE', url: '/v1/account', token, body });
  const whoAmI = (token: string) => app.request({ method: 'GET', url: '/v1/auth/account', token });

  it('changes the password with the current one; other sessions end, the asking one stays', async () => {
    const person = await app.signup();
    const other = (await login(person.email)).json().data.token as string;
    const changed = await changePassword(person.token, { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().data, { changed: true, otherSessionsEnded: 1 });
    assert.equal((await whoAmI(person.token)).statusCode, 200, 'the session that asked stays signed in');
    expectError(await whoAmI(other), 401, 'UNAUTHORIZED');
    expectError(await login(person.email), 401, 'UNAUTHORIZED');
    assert.equal((await login(person.email, 'a brand new passphrase')).statusCode, 200, 'the new password signs in');
  });

  it('refuses a wrong current password with a clear error, and bad input', async () => {
    const person = await app.signup();
    const wrong = expectError(
      await changePassword(person.token, { currentPassword: 'not my password', newPassword: 'a brand new passphrase' }),
      403,
      'FORBIDDEN',
    );
    assert.equal(wrong.message, 'The current password is wrong');
    assert.equal(wrong.details?.[0]?.path, '/body/currentPassword');
    expectError(await changePassword(person.token, { currentPassword: PASSWORD, newPassword: 'short' }), 400, 'BAD_REQUEST');
    expectError(await changePassword(person.token, { currentPassword: PASSWORD }), 400, 'BAD_REQUEST');
    expectError(await changePassword(person.token, { currentPassword: PASSWORD, newPassword: PASSWORD }), 400, 'BAD_REQUEST');
    expectError(await changePassword(null, { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' }), 401, 'UNAUTHORIZED');
    assert.equal((await login(person.email)).statusCode, 200, 'the password is unchanged');
  });

  it('an API key cannot change the password or delete the account', async () => {
    const person = await app.signup();
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'script' } })).json().data.key as string;
    expectError(await changePassword(key, { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' }), 401, 'UNAUTHORIZED');
    expectError(await deleteAccount(key, { password: PASSWORD }), 401, 'UNAUTHORIZED');
  });

  it('deletion needs the right password and refuses bad input', async () => {
    const person = await app.signup();
    expectError(await deleteAccount(person.token, { password: 'not my password' }), 403, 'FORBIDDEN');
    expectError(await deleteAccount(person.token, {}), 400, 'BAD_REQUEST');
    expectError(await deleteAccount(person.token, { password: PASSWORD, extra: true }), 400, 'BAD_REQUEST');
    expectError(await deleteAccount(person.token, { password: 42 }), 400, 'BAD_REQUEST');
    assert.equal((await whoAmI(person.token)).statusCode, 200, 'still there');
  });

  it('refuses deletion while the account has open tasks, saying what to settle', async () => {
    const owner = await app.signup();
    const requester = await app.signup();
    const agent = await pollingAgent(app, owner.token);
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id);
    const forRequester = expectError(await deleteAccount(requester.token, { password: PASSWORD }), 409, 'CONFLICT');
    assert.match(forRequester.message, /Open tasks: 1 task you requested/);
    const forOwner = expectError(await deleteAccount(owner.token, { password: PASSWORD }), 409, 'CONFLICT');
    assert.match(forOwner.message, /1 task assigned to your agents/);
    assert.equal((await callback(app, id, { taskToken: token, result: { ok: true } })).statusCode, 200);
    assert.equal((await deleteAccount(requester.token, { password: PASSWORD })).statusCode, 200, 'a finished task holds nothing up');
  });

  it('refuses deletion while its agents hold an unpaid balance', async () => {
    const owner = await app.signup();
    const requester = await app.signup();
    const agent = await pollingAgent(app, owner.token, { pricePerTaskCents: 300 });
    const { id, token } = await assignedTask(app, requester.token, owner.token, agent.id, { maxPriceCents: 1000 });
    assert.equal((await callback(app, id, { taskToken: token, result: { ok: true } })).statusCode, 200);
    const refused = expectError(await deleteAccount(owner.token, { password: PASSWORD }), 409, 'CONFLICT');
    assert.match(refused.message, /unpaid balance \(.*usd cents\); have it paid out first/);
    const operator = await app.signup(OPERATOR);
    const balance = (await app.request({ method: 'GET', url: `/v1/agents/${agent.id}/balance`, token: owner.token })).json().data;
    assert.ok(balance.availableCents > 0, 'the agent earned something');
    const paid = await app.request({
      method: 'POST',
      url: '/v1/payouts',
      token: operator.token,
      body: { agentId: agent.id, amountCents: balance.availableCents },
    });
    assert.equal(paid.statusCode, 201, paid.body);
    const deleted = await deleteAccount(owner.token, { password: PASSWORD });
    assert.equal(deleted.statusCode, 200, deleted.body);
    // The ledger keeps its postings for the task.
    assert.ok((await entriesOfTask(app, id)).length > 0, 'the ledger keeps its postings for the task');
  });

  it('a deleted account cannot log in, its agents no longer route or appear, its username stays reserved', async () => {
    const person = await socialUser(app, uniqueUsername('gone'));
    const email = (await whoAmI(person.token)).json().data.email as string;
    const other = (await login(email)).json().data.token as string;
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'script' } })).json().data.key as string;
    const agent = await pollingAgent(app, person.token);
    const post = await createPost(app, person.token, 'A post that goes with the account');
    const agentKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: person.token, body: { name: 'agent', agentId: agent.id } })).json().data
      .key as string;
    const agentUsername = uniqueUsername('gone_agent');
    const agentProfile = await app.request({ method: 'POST', url: '/v1/users', token: agentKey, body: { username: agentUsername, displayName: 'Gone agent' } });
    assert.equal(agentProfile.statusCode, 201, agentProfile.body);
    const requester = await app.signup();

    const deleted = await deleteAccount(person.token, { password: PASSWORD });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(deleted.json().data, { deleted: true });

    for (const token of [person.token, other, key]) expectError(await whoAmI(token), 401, 'UNAUTHORIZED');
    expectError(await login(email), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: `/v1/agents/${agent.id}` }), 404, 'NOT_FOUND');
    expectError(
      await app.request({ method: 'POST', url: '/v1/tasks', token: requester.token, body: { description: 'Summarise this', agentId: agent.id } }),
      404,
      'NOT_FOUND',
    );
    const found = await app.request({ method: 'GET', url: `/v1/discover?q=${encodeURIComponent('summarises long documents')}` });
    assert.ok(!JSON.stringify(found.json()).includes(agent.id), 'discovery no longer finds the agent');
    const unmatched = await submitTask(app, requester.token, { capabilities: ['text-summarization'] });
    assert.notEqual(unmatched.assignedAgent?.id, agent.id, 'routing never picks the deleted agent');
    expectError(await app.request({ method: 'GET', url: `/v1/social/posts/${post.id}` }), 404, 'NOT_FOUND');
    expectError(await app.request({ method: 'GET', url: `/v1/social/users/${person.username}/profile` }), 404, 'NOT_FOUND');

    const taker = await app.signup();
    const taken = expectError(
      await app.request({ method: 'POST', url: '/v1/users', token: taker.token, body: { username: person.username, displayName: 'Taker' } }),
      409,
      'CONFLICT',
    );
    assert.match(taken.message, /belonged to a deleted account and is reserved until \d{4}-\d{2}-\d{2}/);
    const agentNameTaken = expectError(
      await app.request({ method: 'POST', url: '/v1/users', token: taker.token, body: { username: agentUsername, displayName: 'Taker' } }),
      409,
      'CONFLICT',
    );
    assert.match(agentNameTaken.message, /reserved until/, "the agent profile's username is reserved too");
    expectError(await whoAmI(agentKey), 401, 'UNAUTHORIZED');
    const check = await app.request({ method: 'GET', url: `/v1/users/check?username=${person.username}` });
    assert.equal(check.json().available, false);
    // The email is free again: its owner may start over.
    assert.equal((await app.request({ method: 'POST', url: '/v1/auth/signup', body: { email, password: PASSWORD } })).statusCode, 201);
  });

  it('the people a deleted account followed, and who followed it, count one fewer', async () => {
    const leaving = await socialUser(app, uniqueUsername('leaving'));
    const fan = await socialUser(app, uniqueUsername('fan'));
    const idol = await socialUser(app, uniqueUsername('idol'));
    const follow = (token: string, username: string) => app.request({ method: 'POST', url: `/v1/social/users/${username}/follow`, token });
    for (const [who, whom] of [
      [fan, leaving],
      [leaving, idol],
      [fan, idol],
    ] as const)
      assert.equal((await follow(who.token, whom.username)).statusCode, 200);
    const counts = async (username: string) => {
      const user = (await app.request({ method: 'GET', url: `/v1/social/users/${username}/profile`, token: fan.token })).json().user;
      return { followers: user.followersCount as number, following: user.followingCount as number };
    };
    assert.deepEqual(await counts(fan.username), { followers: 0, following: 2 });
    assert.deepEqual(await counts(idol.username), { followers: 2, following: 0 });

    assert.equal((await deleteAccount(leaving.token, { password: PASSWORD })).statusCode, 200);
    assert.deepEqual(await counts(fan.username), { followers: 0, following: 1 });
    assert.deepEqual(await counts(idol.username), { followers: 1, following: 0 });
    const following = (await app.request({ method: 'GET', url: `/v1/social/users/${fan.username}/following`, token: fan.token })).json().users;
    assert.deepEqual(
      following.map((user: { username: string }) => user.username),
      [idol.username],
    );
  });

  it("its images and its agents' go with it; an organization it alone owned passes to the member who joined first", async () => {
    const leaving = await app.signup();
    const agent = await pollingAgent(app, leaving.token);
    const agentKey = (await app.request({ method: 'POST', url: '/v1/api-keys', token: leaving.token, body: { name: 'agent', agentId: agent.id } })).json().data
      .key as string;
    const upload = async (token: string) => {
      const response = await uploadImage(app, token);
      assert.equal(response.statusCode, 201, response.body);
      return new URL(response.json().data.url as string).pathname;
    };
    const image = (path: string) => app.request({ method: 'GET', url: path });
    const stayer = await app.signup();
    const [own, agents, others] = [await upload(leaving.token), await upload(agentKey), await upload(stayer.token)];

    const org = async (token: string, name: string, members: string[]) => {
      const created = await app.request({ method: 'POST', url: '/v1/orgs', token, body: { name } });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().data.id as string;
      for (const accountId of members)
        assert.equal((await app.request({ method: 'POST', url: `/v1/orgs/${id}/members`, token, body: { accountId } })).statusCode, 201);
      return id;
    };
    const first = await app.signup();
    const second = await app.signup();
    const handedOn = await org(leaving.token, 'Handed on', [first.accountId, second.accountId]);
    const joined = await org(stayer.token, 'Joined', [leaving.accountId]);
    const alone = await org(leaving.token, 'Alone', []);

    assert.equal((await deleteAccount(leaving.token, { password: PASSWORD })).statusCode, 200);

    expectError(await image(own), 404, 'NOT_FOUND');
    expectError(await image(agents), 404, 'NOT_FOUND');
    assert.equal((await image(others)).statusCode, 200, "someone else's image stays");
    const roles = async (token: string, id: string) => {
      const response = await app.request({ method: 'GET', url: `/v1/orgs/${id}`, token });
      assert.equal(response.statusCode, 200, response.body);
      return Object.fromEntries(response.json().data.members.map((m: { accountId: string; role: string }) => [m.accountId, m.role]));
    };
    assert.deepEqual(await roles(first.token, handedOn), { [first.accountId]: 'owner', [second.accountId]: 'member' });
    assert.deepEqual(await roles(stayer.token, joined), { [stayer.accountId]: 'owner' });
    // Its owner is gone and no one else was in it: no one can see it.
    expectError(await app.request({ method: 'GET', url: `/v1/orgs/${alone}`, token: first.token }), 404, 'NOT_FOUND');
  });

  it('one cannot delete someone else: the route acts on the caller only', async () => {
    const alice = await app.signup();
    const bob = await app.signup();
    const agent = await registerAgent(app, bob.token);
    expectError(await deleteAccount(alice.token, { password: 'correct horse battery x' }), 403, 'FORBIDDEN');
    assert.equal((await deleteAccount(alice.token, { password: PASSWORD })).statusCode, 200);
    assert.equal((await whoAmI(bob.token)).statusCode, 200, "bob's account is untouched");
    assert.equal((await app.request({ method: 'GET', url: `/v1/agents/${agent.id}`, token: bob.token })).statusCode, 200, "bob's agent is untouched");
  });
});
