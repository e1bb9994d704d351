import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import * as images from '../helpers/images.ts';
import { createPost, socialUser, type SocialUser } from '../helpers/social.ts';

const QUOTA = 2 * 1024 * 1024;
const PUBLIC_URL = 'https://agentry.example.test';

interface ShownMedia {
  id: string;
  url: string;
  width: number | null;
  height: number | null;
  alt: string;
  mimeType: string;
}

describe('pictures and content warnings on posts', () => {
  let app: TestApp;
  let author: SocialUser;
  let stranger: SocialUser;

  before(async () => {
    app = await startTestApp({ MEDIA_QUOTA_BYTES: String(QUOTA), PUBLIC_URL });
    author = await socialUser(app);
    stranger = await socialUser(app);
  });
  after(() => app.close());

  const upload = async (bytes: Buffer, token = author.token) => {
    const response = await app.request({ method: 'POST', url: '/v1/media', token, rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().data as { id: string; url: string; width: number | null; height: number | null };
  };
  const post = (body: Record<string, unknown>, token: string | null = author.token) => app.request({ method: 'POST', url: '/v1/social/posts', token, body });
  const postPage = async (id: string, token: string | null = null) => {
    const response = await app.request({ method: 'GET', url: `/v1/social/posts/${id}`, token });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { post: { media: ShownMedia[]; contentWarning: string | null }; comments: { id: string; media: ShownMedia[] }[] };
  };
  const served = async (url: string) => (await app.request({ method: 'GET', url: new URL(url).pathname })).statusCode;

  it('records the size of an upload', async () => {
    for (const bytes of [images.png, images.jpeg, images.webp]) {
      const media = await upload(bytes);
      assert.deepEqual([media.width, media.height], [16, 12]);
    }
    const gif = await upload(images.gif);
    assert.deepEqual([gif.width, gif.height], [1, 1]);
  });

  it('shows the pictures, in order with their alt text, and the content warning on the post page, the profile and the answer', async () => {
    const png = await upload(images.png);
    const jpeg = await upload(images.jpeg);
    const response = await post({
      body: 'Two pictures of the garden',
      media: [
        { id: png.id, alt: 'A red square on grey' },
        { id: jpeg.id, alt: '' },
      ],
      contentWarning: '  Bright colours  ',
    });
    assert.equal(response.statusCode, 201, response.body);
    const created = response.json().post;
    const expected = [
      { id: png.id, url: `${PUBLIC_URL}/media/${png.id}`, width: 16, height: 12, alt: 'A red square on grey', mimeType: 'image/png' },
      { id: jpeg.id, url: `${PUBLIC_URL}/media/${jpeg.id}`, width: 16, height: 12, alt: '', mimeType: 'image/jpeg' },
    ];
    assert.deepEqual(created.media, expected);
    assert.equal(created.contentWarning, 'Bright colours', 'the warning is trimmed');

    const page = await postPage(created.id);
    assert.deepEqual(page.post.media, expected);
    assert.equal(page.post.contentWarning, 'Bright colours');

    const profile = await app.request({ method: 'GET', url: `/v1/social/users/${author.username}/posts` });
    const listed = profile.json().posts.find((p: { id: string }) => p.id === created.id);
    assert.deepEqual(listed.media, expected);
    assert.equal(listed.contentWarning, 'Bright colours');
    assert.equal(await served(expected[0]!.url), 200, 'the picture is readable at its URL');

    // A quote shows the pictures of the post it quotes.
    const quote = await app.request({ method: 'POST', url: `/v1/social/posts/${created.id}/repost`, token: stranger.token, body: { body: 'Look at this' } });
    assert.equal(quote.statusCode, 201, quote.body);
    assert.deepEqual(quote.json().post.media, []);
    assert.deepEqual(quote.json().post.originalPost.media, expected);
    assert.equal(quote.json().post.originalPost.contentWarning, 'Bright colours');
  });

  it('answers null and no pictures for a plain post, and a blank warning means none', async () => {
    const plain = await createPost(app, author.token, 'Nothing to see');
    assert.deepEqual(plain.media, []);
    assert.equal(plain.contentWarning, null);
    const blank = await post({ body: 'Blank warning', contentWarning: '   ' });
    assert.equal(blank.statusCode, 201, blank.body);
    assert.equal(blank.json().post.contentWarning, null);
    assert.equal((await postPage(blank.json().post.id)).post.contentWarning, null);
  });

  it('refuses five pictures, too long alt text or warning, and a picture named twice, writing nothing', async () => {
    const uploads = await Promise.all([1, 2, 3, 4, 5].map(() => upload(images.gif)));
    const five = expectError(await post({ body: 'Too many', media: uploads.map((u) => ({ id: u.id, alt: 'x' })) }), 400, 'BAD_REQUEST');
    assert.ok(
      five.details?.some((d) => d.path.startsWith('/body/media')),
      JSON.stringify(five),
    );
    const longAlt = expectError(await post({ body: 'Long alt', media: [{ id: uploads[0]!.id, alt: 'a'.repeat(1001) }] }), 400, 'BAD_REQUEST');
    assert.ok(
      longAlt.details?.some((d) => d.path.startsWith('/body/media/0/alt')),
      JSON.stringify(longAlt),
    );
    const longWarning = expectError(await post({ body: 'Long warning', contentWarning: 'w'.repeat(201) }), 400, 'BAD_REQUEST');
    assert.ok(
      longWarning.details?.some((d) => d.path === '/body/contentWarning'),
      JSON.stringify(longWarning),
    );
    const twice = expectError(
      await post({
        body: 'Twice',
        media: [
          { id: uploads[0]!.id, alt: 'a' },
          { id: uploads[0]!.id, alt: 'b' },
        ],
      }),
      400,
      'BAD_REQUEST',
    );
    assert.deepEqual(twice.details, [{ path: '/body/media/1/id', message: 'repeats a picture' }]);
    expectError(await post({ body: 'No alt', media: [{ id: uploads[0]!.id }] }), 400, 'BAD_REQUEST');
    expectError(await post({ body: 'Not an id', media: [{ id: 'nope', alt: '' }] }), 400, 'BAD_REQUEST');

    // None of these attached anything: the four fit in one post.
    const four = await post({ body: 'Four', media: uploads.slice(0, 4).map((u, i) => ({ id: u.id, alt: `picture ${i + 1}` })) });
    assert.equal(four.statusCode, 201, four.body);
    assert.deepEqual(
      four.json().post.media.map((m: ShownMedia) => m.alt),
      ['picture 1', 'picture 2', 'picture 3', 'picture 4'],
    );
  });

  it("refuses an unknown id, someone else's upload and an id that names no upload alike (422), and a picture already shown (409)", async () => {
    const unknown = expectError(await post({ body: 'Unknown', media: [{ id: '00000000-0000-4000-8000-000000000000', alt: '' }] }), 422, 'UNPROCESSABLE');
    assert.deepEqual(unknown.details, [{ path: '/body/media/0/id', message: 'is not one of your uploads' }]);
    const theirs = await upload(images.png, stranger.token);
    const others = expectError(await post({ body: 'Theirs', media: [{ id: theirs.id, alt: '' }] }), 422, 'UNPROCESSABLE');
    assert.equal(others.message, unknown.message, "someone else's upload is answered as one that does not exist");
    // Only images are ever stored (an SVG or a page is refused at upload), so an id that is no image is no upload.
    const aPost = await createPost(app, author.token, 'Not a picture');
    expectError(await post({ body: 'A post id', media: [{ id: aPost.id, alt: '' }] }), 422, 'UNPROCESSABLE');
    expectError(
      await app.request({ method: 'POST', url: '/v1/media', token: author.token, rawBody: images.svg, headers: { 'content-type': 'image/svg+xml' } }),
      400,
      'BAD_REQUEST',
    );

    const mine = await upload(images.png);
    assert.equal((await post({ body: 'First', media: [{ id: mine.id, alt: 'once' }] })).statusCode, 201);
    const again = expectError(await post({ body: 'Again', media: [{ id: mine.id, alt: 'twice' }] }), 409, 'CONFLICT');
    assert.deepEqual(again.details, [{ path: '/body/media/0/id', message: 'is already attached' }]);
    expectError(await commentWith(aPost.id, mine.id), 409, 'CONFLICT');
  });

  it('asks for a credential', async () => {
    expectError(await post({ body: 'Anonymous', media: [] }, null), 401, 'UNAUTHORIZED');
  });

  it("frees the uploader's quota when the post is deleted, its pictures' URLs answering 404", async () => {
    const person = await socialUser(app);
    const big = images.pngWithChunk(images.png, 'IDAT', Buffer.alloc(1_400_000));
    const picture = await upload(big, person.token);
    const created = await post({ body: 'A big picture', media: [{ id: picture.id, alt: 'Mostly black' }] }, person.token);
    assert.equal(created.statusCode, 201, created.body);
    expectError(
      await app.request({ method: 'POST', url: '/v1/media', token: person.token, rawBody: big, headers: { 'content-type': 'image/png' } }),
      409,
      'CONFLICT',
    );
    const deleted = await app.request({ method: 'DELETE', url: `/v1/social/posts/${created.json().post.id}`, token: person.token });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal(await served(picture.url), 404);
    const listed = await app.request({ method: 'GET', url: '/v1/media', token: person.token });
    assert.equal(listed.json().pagination.total, 0);
    await upload(big, person.token);
  });

  it("shows a comment's pictures with the post, and deleting the comment, or the post under it, deletes them", async () => {
    const target = await createPost(app, author.token, 'Comment with pictures, please');
    const picture = await upload(images.webp, stranger.token);
    const response = await app.request({
      method: 'POST',
      url: `/v1/social/posts/${target.id}/comments`,
      token: stranger.token,
      body: { body: 'Here is mine', media: [{ id: picture.id, alt: 'A small green field' }] },
    });
    assert.equal(response.statusCode, 201, response.body);
    const expected = [{ id: picture.id, url: `${PUBLIC_URL}/media/${picture.id}`, width: 16, height: 12, alt: 'A small green field', mimeType: 'image/webp' }];
    assert.deepEqual(response.json().comment.media, expected);
    const page = await postPage(target.id);
    assert.deepEqual(page.comments.find((c) => c.id === response.json().comment.id)?.media, expected);

    const removed = await app.request({ method: 'DELETE', url: `/v1/social/comments/${response.json().comment.id}`, token: stranger.token });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(await served(picture.url), 404);

    // A comment's pictures go with the post it is on, whoever deletes it.
    const second = await upload(images.png, stranger.token);
    await app.request({
      method: 'POST',
      url: `/v1/social/posts/${target.id}/comments`,
      token: stranger.token,
      body: { body: 'And another', media: [{ id: second.id, alt: '' }] },
    });
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/social/posts/${target.id}`, token: author.token })).statusCode, 200);
    assert.equal(await served(second.url), 404);
  });

  it("refuses someone else's picture on a comment", async () => {
    const target = await createPost(app, stranger.token, 'Their post');
    const theirs = await upload(images.png, stranger.token);
    const refused = expectError(await commentWith(target.id, theirs.id), 422, 'UNPROCESSABLE');
    assert.deepEqual(refused.details, [{ path: '/body/media/0/id', message: 'is not one of your uploads' }]);
  });

  const commentWith = (postId: string, mediaId: string) =>
    app.request({ method: 'POST', url: `/v1/social/posts/${postId}/comments`, token: author.token, body: { body: 'x', media: [{ id: mediaId, alt: '' }] } });

  it('takes a picture out of its post when the upload is deleted, the post staying', async () => {
    const first = await upload(images.png);
    const second = await upload(images.gif);
    const created = await post({
      body: 'Soon one picture',
      media: [
        { id: first.id, alt: 'first' },
        { id: second.id, alt: 'second' },
      ],
    });
    const id = created.json().post.id;
    assert.equal((await app.request({ method: 'DELETE', url: `/v1/media/${first.id}`, token: author.token })).statusCode, 200);
    assert.deepEqual(
      (await postPage(id)).post.media.map((m) => m.alt),
      ['second'],
    );
    // Someone else cannot delete it.
    expectError(await app.request({ method: 'DELETE', url: `/v1/media/${second.id}`, token: stranger.token }), 404, 'NOT_FOUND');
  });
});
