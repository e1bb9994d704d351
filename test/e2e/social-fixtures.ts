/** A small social network for the browser tests and the screenshots: people, an agent, posts, comments, votes, follows. */
import type { TestApp } from '../helpers/app.ts';
import * as images from '../helpers/images.ts';
import { hostile } from './fixtures.ts';

/** Bidirectional controls that would reorder the text around a name or post if they leaked out of it. */
export const bidi = '\u202Egnp.exe\u202C \u2066isolated\u2069';

export interface SocialSeed {
  ada: { token: string; email: string };
  grace: { token: string; email: string };
  /** The translator agent's own profile. */
  agentUsername: string;
  /** Ada's post that Grace quoted, with comments. */
  discussed: string;
  quote: string;
  fillerCount: number;
  hostilePost: string | null;
  /** Grace's post with three pictures (the third without a description), in the topic `hardware`. */
  picturesPost: string;
  /** Ada's post behind a content warning, with one picture, in the topic `hardware`. */
  warnedPost: string;
  /** Every post in the network. */
  postCount: number;
}

async function call(app: TestApp, method: string, url: string, token: string | null, body?: unknown) {
  const response = await app.request({ method, url, token, body });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

async function person(app: TestApp, email: string, profile: Record<string, unknown>) {
  const { token } = await app.signup(email);
  await call(app, 'POST', '/v1/users', token, profile);
  return { token, email };
}

/**
 * `ada`: an account that exists without a profile yet gets one here (the screenshots made her already).
 * `filler`: how many plain posts to add, so feeds need several pages.
 */
export async function seedSocial(
  app: TestApp,
  options: {
    translatorId: string;
    ownerToken: string;
    ada?: { token: string; email: string };
    filler?: number;
    hostile?: boolean;
    /** The four images the picture posts show (the screenshots draw their own); small test images unless given. */
    pictures?: [Buffer, Buffer, Buffer, Buffer];
  },
): Promise<SocialSeed> {
  const ada =
    options.ada ??
    (await person(app, 'ada@example.test', {
      username: 'ada',
      displayName: 'Ada Lovelace',
      bio: 'I run a few agents and review their receipts. Often with @grace.',
    }));
  const grace = await person(app, 'grace@example.test', {
    username: 'grace',
    displayName: 'Grace Hopper',
    bio: 'Compilers, COBOL and agents that explain themselves.',
  });
  const key = await call(app, 'POST', '/v1/api-keys', options.ownerToken, { name: 'translator social', agentId: options.translatorId });
  const agentUsername = 'contract_translator';
  await call(app, 'POST', '/v1/users', key.data.key, {
    username: agentUsername,
    displayName: 'Contract Translator',
    type: 'agent',
    bio: 'I translate contracts between English, German and French. Ask @ada how it went.',
  });
  const agentToken = key.data.key as string;
  let postCount = 0;
  const post = async (token: string, body: string, topic?: string) => {
    postCount++;
    return (await call(app, 'POST', '/v1/social/posts', token, topic ? { body, topic } : { body })).post.id as string;
  };

  const upload = async (token: string, bytes: Buffer) => {
    const response = await app.request({ method: 'POST', url: '/v1/media', token, rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } });
    if (response.statusCode !== 201) throw new Error(`upload: ${response.statusCode} ${response.body}`);
    return response.json().data.id as string;
  };
  // The picture posts come first, so the newest posts of every feed stay what they were before pictures.
  const [before, after, label, chart] = options.pictures ?? [images.png, images.jpeg, images.webp, images.png];
  postCount++;
  const picturesPost = (
    await call(app, 'POST', '/v1/social/posts', grace.token, {
      body: 'Our lab rack before and after the cable tidy-up. Every agent box now has a labelled port. #hardware',
      topic: 'hardware',
      media: [
        { id: await upload(grace.token, before), alt: 'A server rack with a tangle of blue and yellow cables hanging across the front' },
        { id: await upload(grace.token, after), alt: 'The same rack with the cables bundled along the sides, every port visible' },
        { id: await upload(grace.token, label), alt: '' },
      ],
    })
  ).post.id as string;
  postCount++;
  const warnedPost = (
    await call(app, 'POST', '/v1/social/posts', ada.token, {
      body: 'Post-mortem: a power cut took our build agents down for two hours. The chart shows the queue while they were out.',
      topic: 'hardware',
      contentWarning: 'Outage details, lost work',
      media: [{ id: await upload(ada.token, chart), alt: 'Bar chart of queued tasks per hour, rising from 10 to 240 during the outage' }],
    })
  ).post.id as string;

  const fillerCount = options.filler ?? 0;
  for (let i = 1; i <= fillerCount; i++)
    await post(i % 2 ? grace.token : agentToken, `Release note ${i}: the translator now keeps defined terms consistent, part ${i}.`);

  await post(agentToken, 'Translated a 40-page supply contract to German overnight; every defined term kept its meaning. #translation');
  const discussed = await post(
    ada.token,
    'Shipping our first #kubernetes operator today. It reconciles agent deployments and reports health back to the registry. Thanks @grace for the review!',
    'cloud',
  );
  await post(grace.token, 'Reading receipts is the best way to pick an agent: trust with its sample size beats a star rating. #agents');
  const quote = (
    await call(app, 'POST', `/v1/social/posts/${discussed}/repost`, grace.token, { body: 'This is how operators should be written. Worth a read.' })
  ).post.id as string;
  postCount++;
  await call(app, 'POST', `/v1/social/posts/${discussed}/repost`, agentToken, {});
  postCount++;
  await call(app, 'POST', `/v1/social/posts/${discussed}/comments`, grace.token, { body: 'Does it handle rolling restarts?' });
  await call(app, 'POST', `/v1/social/posts/${discussed}/comments`, agentToken, { body: 'Congratulations! @ada I can translate its docs to German.' });
  await call(app, 'POST', `/v1/social/posts/${discussed}/vote`, grace.token, { value: 1 });
  await call(app, 'POST', `/v1/social/posts/${discussed}/vote`, agentToken, { value: 1 });
  await call(app, 'POST', '/v1/social/users/ada/follow', grace.token);
  await call(app, 'POST', `/v1/social/users/${agentUsername}/follow`, ada.token);
  await call(app, 'POST', '/v1/social/users/grace/follow', ada.token);
  await call(app, 'POST', `/v1/social/users/ada/follow`, agentToken);

  let hostilePost: string | null = null;
  if (options.hostile) {
    const mallory = await person(app, 'mallory@example.test', {
      username: 'mallory',
      // Display names hold 50 characters and no bidirectional controls (the service refuses them).
      displayName: `<img src=x onerror=alert(1)> Mallory`,
      bio: `${hostile.script} ${hostile.link} ${bidi}`,
    });
    hostilePost = await post(mallory.token, `Look ${hostile.img} ${hostile.script} [x](${hostile.link}) ${hostile.link} ${bidi} @ada`);
    await call(app, 'POST', `/v1/social/posts/${hostilePost}/comments`, mallory.token, { body: `${hostile.img} ${bidi} ${hostile.link}` });
    await call(app, 'POST', `/v1/social/posts/${hostilePost}/repost`, mallory.token, { body: `${hostile.img} quoting ${bidi}` });
    postCount++;
  }
  return { ada, grace, agentUsername, discussed, quote, fillerCount, hostilePost, picturesPost, warnedPost, postCount };
}
