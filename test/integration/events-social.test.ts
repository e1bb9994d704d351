/**
 * The social network on GET /v1/events: a `notification` event (the notification and the new unread
 * count) and a `post` event (a new post by an account one follows), from this node or another.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { otherNode, startTestApp, type TestApp } from '../helpers/app.ts';
import { openEvents, type EventsClient, type ServerSentEvent } from '../helpers/events.ts';
import { comment, createPost, follow, socialUser, vote, type SocialUser } from '../helpers/social.ts';

type NotificationEvent = { notification: { type: string; actor: { username: string }; postId: string | null }; unread: number };
type PostEvent = { post: { id: string; body: string; author: { username: string } } };

const dataOf = <T>(events: ServerSentEvent[], name: string): T[] =>
  events.filter((event) => event.event === name).map((event) => JSON.parse(event.data ?? 'null') as T);

describe('GET /v1/events: notifications and followed posts', () => {
  let app: TestApp;
  let url: string;
  let alice: SocialUser;
  let bob: SocialUser;
  const streams: EventsClient[] = [];

  before(async () => {
    app = await startTestApp();
    await app.server.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
    alice = await socialUser(app);
    bob = await socialUser(app);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  after(() => app.close());
  const open = async (token: string) => {
    const stream = await openEvents(url, token);
    streams.push(stream);
    await stream.until('the starting id', (events) => events.length > 0);
    return stream;
  };

  it('sends a mention, a reply and a like to the one notified, with the unread count, and nothing to the actor', async () => {
    const bobs = await open(bob.token);
    const alices = await open(alice.token);
    const post = await createPost(app, alice.token, `Hello @${bob.username}, have a look`);
    const [mention] = dataOf<NotificationEvent>(await bobs.until('the mention', (events) => dataOf(events, 'notification').length === 1), 'notification');
    assert.equal(mention!.notification.type, 'mention');
    assert.equal(mention!.notification.actor.username, alice.username);
    assert.equal(mention!.notification.postId, post.id);
    assert.equal(mention!.unread, 1);

    await comment(app, bob.token, post.id, 'Looked, thanks');
    const [reply] = dataOf<NotificationEvent>(await alices.until('the reply', (events) => dataOf(events, 'notification').length === 1), 'notification');
    assert.equal(reply!.notification.type, 'reply');
    assert.equal(reply!.notification.actor.username, bob.username);

    const own = await createPost(app, bob.token, 'A post of my own');
    await vote(app, alice.token, own.id, 1);
    const likes = dataOf<NotificationEvent>(await bobs.until('the like', (events) => dataOf(events, 'notification').length === 2), 'notification');
    assert.deepEqual(
      likes.map((event) => [event.notification.type, event.unread]),
      [
        ['mention', 1],
        ['like', 2],
      ],
    );
    // Alice was told of the reply only; none of her own acts came back to her.
    assert.deepEqual(
      dataOf<NotificationEvent>(alices.events, 'notification').map((event) => event.notification.type),
      ['reply'],
    );
  });

  it('sends the new posts of followed accounts, and not those of others', async () => {
    const reader = await socialUser(app);
    const stranger = await socialUser(app);
    await follow(app, reader.token, alice.username);
    const readers = await open(reader.token);
    await createPost(app, stranger.token, 'Nobody follows me here');
    const followed = await createPost(app, alice.token, 'For my followers');
    const [event] = dataOf<PostEvent>(await readers.until('the followed post', (events) => dataOf(events, 'post').length > 0), 'post');
    assert.equal(event!.post.id, followed.id);
    assert.equal(event!.post.author.username, alice.username);
    // A later post by someone followed comes after the stranger's, so none of the stranger's came.
    const later = await createPost(app, alice.token, 'And one more');
    const posts = dataOf<PostEvent>(await readers.until('the second post', (events) => dataOf(events, 'post').length === 2), 'post');
    assert.deepEqual(
      posts.map((e) => e.post.id),
      [followed.id, later.id],
    );
  });

  it('sends the new posts in a followed topic, not those in other topics, nor a blocked author’s', async () => {
    const reader = await socialUser(app);
    const blocked = await socialUser(app);
    const followTopic = await app.request({ method: 'POST', url: '/v1/social/topics/robotics/follow', token: reader.token });
    assert.equal(followTopic.statusCode, 200);
    const blocking = await app.request({ method: 'POST', url: `/v1/social/users/${blocked.username}/block`, token: reader.token });
    assert.equal(blocking.statusCode, 200);
    const readers = await open(reader.token);
    await createPost(app, bob.token, 'Nothing about machines here', 'food');
    await createPost(app, blocked.token, 'Robot arms, from someone blocked', 'robotics');
    const inTopic = await createPost(app, bob.token, 'Our robot arm learned to sort bolts', 'robotics');
    const [event] = dataOf<PostEvent>(await readers.until('the post in the followed topic', (events) => dataOf(events, 'post').length > 0), 'post');
    assert.equal(event!.post.id, inTopic.id);
    // A later post in the topic comes after the others, so neither the other topic's nor the blocked author's came.
    const later = await createPost(app, bob.token, 'And a gripper', 'robotics');
    const posts = dataOf<PostEvent>(await readers.until('the second post', (events) => dataOf(events, 'post').length === 2), 'post');
    assert.deepEqual(
      posts.map((e) => e.post.id),
      [inTopic.id, later.id],
    );
  });

  it('hears a notification and a post written on another node', async () => {
    const node = await otherNode(app);
    try {
      const reader = await socialUser(app);
      await follow(app, reader.token, alice.username);
      const readers = await open(reader.token);
      const post = await createPost(node, alice.token, `From the other node, @${reader.username}`);
      const events = await readers.until('the post and the mention', (all) => dataOf(all, 'post').length === 1 && dataOf(all, 'notification').length === 1);
      assert.equal(dataOf<PostEvent>(events, 'post')[0]!.post.id, post.id);
      assert.equal(dataOf<NotificationEvent>(events, 'notification')[0]!.notification.postId, post.id);
    } finally {
      await node.close();
    }
  });
});
