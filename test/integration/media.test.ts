import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, startTestApp, type TestApp } from '../helpers/app.ts';
import * as images from '../helpers/images.ts';

const QUOTA = 2 * 1024 * 1024;

describe('media uploads', () => {
  let app: TestApp;
  let owner: { token: string; accountId: string };
  let stranger: { token: string; accountId: string };

  before(async () => {
    app = await startTestApp({ MEDIA_QUOTA_BYTES: String(QUOTA), PUBLIC_URL: 'https://agentry.example.test' });
    owner = await app.signup();
    stranger = await app.signup();
  });
  after(() => app.close());

  const upload = (bytes: Buffer, token: string | null = owner.token, contentType = 'application/octet-stream') =>
    app.request({ method: 'POST', url: '/v1/media', token, rawBody: bytes, headers: { 'content-type': contentType } });

  const uploaded = async (bytes: Buffer, token = owner.token) => {
    const response = await upload(bytes, token);
    assert.equal(response.statusCode, 201, response.body);
    return response.json().data as { id: string; url: string; contentType: string; bytes: number };
  };

  for (const [name, bytes, type] of [
    ['PNG', images.png, 'image/png'],
    ['JPEG', images.jpeg, 'image/jpeg'],
    ['GIF', images.gif, 'image/gif'],
    ['WebP', images.webp, 'image/webp'],
  ] as const) {
    it(`accepts a ${name} whatever its declared type, and serves it with the type read from its bytes`, async () => {
      // Declared as something else: the bytes decide.
      const response = await upload(bytes, owner.token, 'text/html');
      assert.equal(response.statusCode, 201, response.body);
      const { data } = response.json();
      assert.equal(data.contentType, type);
      assert.equal(data.bytes, bytes.length);
      assert.equal(data.url, `https://agentry.example.test/media/${data.id}`);

      const served = await app.request({ method: 'GET', url: `/media/${data.id}` });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], type);
      assert.ok(served.rawPayload.equals(bytes), 'the same bytes come back');
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(String(served.headers['content-security-policy']), /default-src 'none'/);
      assert.match(String(served.headers['content-security-policy']), /sandbox/);
    });
  }

  for (const [name, bytes, declared] of [
    ['an SVG (even declared as a PNG)', images.svg, 'image/png'],
    ['an HTML page', images.html, 'image/gif'],
    ['a GIF header followed by a page (polyglot)', images.gifHtmlPolyglot, 'image/gif'],
    ['a PNG with a script after its end', images.pngWithTrailer, 'image/png'],
    ['a truncated PNG', images.truncatedPng, 'image/png'],
    ['a truncated JPEG', images.jpeg.subarray(0, images.jpeg.length - 40), 'image/jpeg'],
    ['a WebP whose size field lies', Buffer.concat([images.webp, Buffer.alloc(8)]), 'image/webp'],
    ['JSON', Buffer.from('{"image":"x"}'), 'application/json'],
  ] as const) {
    it(`refuses ${name} with a clear 400 and stores nothing`, async () => {
      const before = (await app.request({ method: 'GET', url: '/v1/media?limit=100', token: owner.token })).json().pagination.total;
      const error = expectError(await upload(bytes, owner.token, declared), 400, 'BAD_REQUEST');
      assert.match(error.message, /PNG, JPEG, GIF and WebP/);
      assert.deepEqual(error.details, [{ path: '/body', message: 'is not a complete PNG, JPEG, GIF or WebP image' }]);
      assert.equal((await app.request({ method: 'GET', url: '/v1/media?limit=100', token: owner.token })).json().pagination.total, before);
    });
  }

  const served = async (id: string) => (await app.request({ method: 'GET', url: `/media/${id}` })).rawPayload;
  const script = /<script/i;

  for (const [name, bytes, original] of [
    [
      'a PNG with a page in a tEXt chunk in its first KiB',
      images.pngWithChunk(images.png, 'tEXt', Buffer.concat([Buffer.from('Comment\0'), images.scriptPage])),
      images.png,
    ],
    [
      'a PNG with a page in an iTXt chunk and in a private chunk',
      images.pngWithChunk(images.pngWithChunk(images.png, 'iTXt', images.scriptPage), 'prVt', images.scriptPage),
      images.png,
    ],
    ['a JPEG with a page in a comment (COM)', images.jpegWithSegment(images.jpeg, 0xfe, images.scriptPage), images.jpeg],
    [
      'a JPEG with a page in XMP (APP1)',
      images.jpegWithSegment(images.jpeg, 0xe1, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0'), images.scriptPage])),
      images.jpeg,
    ],
    ['a GIF with a page in a comment extension', images.gifWithExtension(images.gif, 0xfe, images.scriptPage), images.gif],
    [
      'a GIF with a page in an application extension',
      images.gifWithExtension(images.gif, 0xff, Buffer.concat([Buffer.from('XMP DataXMP'), images.scriptPage])),
      images.gif,
    ],
    ['a WebP with a page in its XMP chunk', images.webpWithChunk(images.webp, 'XMP ', images.scriptPage, 0x04), images.webp],
    ['a WebP with a page in its EXIF chunk', images.webpWithChunk(images.webp, 'EXIF', images.scriptPage, 0x08), images.webp],
  ] as const) {
    it(`stores ${name} without its metadata: the served bytes are the image alone`, async () => {
      const media = await uploaded(bytes);
      const stored = await served(media.id);
      assert.doesNotMatch(stored.toString('latin1'), script);
      assert.ok(stored.equals(original), 'what remains is the image without the added block');
      assert.equal(media.bytes, original.length, 'the answer (and the quota) counts the stored bytes');
    });
  }

  it("keeps a JPEG's EXIF orientation and drops the rest of its EXIF", async () => {
    const media = await uploaded(images.jpegWithSegment(images.jpeg, 0xe1, images.exifWith(6, 'Taken at 12 Secret Lane <script>alert(1)</script>')));
    const stored = await served(media.id);
    assert.doesNotMatch(stored.toString('latin1'), /Secret Lane|<script/);
    const exif = stored.indexOf('Exif\0\0');
    assert.ok(exif > 0, 'an EXIF segment is kept');
    // One IFD entry: orientation (0x0112), SHORT, count 1, value 6.
    assert.deepEqual([...stored.subarray(exif + 16, exif + 26)], [0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0, 6]);
    // Orientation 1 ("as stored") says nothing: no EXIF is kept at all.
    const upright = await uploaded(images.jpegWithSegment(images.jpeg, 0xe1, images.exifWith(1, 'Taken at home')));
    assert.ok((await served(upright.id)).equals(images.jpeg));
  });

  const jpegScan = images.jpeg.length - 2; // markup in the entropy-coded data, just before EOI
  for (const [name, bytes] of [
    ['a JPEG with a page in its scan data', Buffer.concat([images.jpeg.subarray(0, jpegScan), images.scriptPage, images.jpeg.subarray(jpegScan)])],
    [
      'a PNG with a page in a chunk that draws the picture (iCCP)',
      images.pngWithChunk(images.png, 'iCCP', Buffer.concat([Buffer.from('<svg onload=alert(1)>\0\0'), Buffer.alloc(16)])),
    ],
    ['a GIF with a page in a block that is kept (graphic control)', images.gifWithExtension(images.gif, 0xf9, Buffer.from('<script>alert(1)</script>'))],
  ] as const) {
    it(`refuses ${name}: markup left once metadata is dropped is 400`, async () => {
      const error = expectError(await upload(bytes), 400, 'BAD_REQUEST');
      assert.match(error.message, /markup/);
      assert.deepEqual(error.details, [{ path: '/body', message: 'holds markup' }]);
    });
  }

  it('refuses an empty body', async () => {
    const error = expectError(await app.request({ method: 'POST', url: '/v1/media', token: owner.token }), 400, 'BAD_REQUEST');
    assert.match(error.message, /image bytes/);
  });

  it('refuses more than 5 MB with 413 in the one error shape', async () => {
    // A real PNG header, then more bytes than the cap: refused before it is stored or read whole.
    const big = Buffer.concat([images.png, Buffer.alloc(5 * 1024 * 1024)]);
    const error = expectError(await upload(big, owner.token, 'image/png'), 413, 'PAYLOAD_TOO_LARGE');
    assert.match(error.message, /at most 5 MB/);
  });

  it('needs a credential: none or a bad one is 401', async () => {
    expectError(await upload(images.png, null), 401, 'UNAUTHORIZED');
    expectError(await upload(images.png, 'ags_not-a-session'), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'GET', url: '/v1/media' }), 401, 'UNAUTHORIZED');
    expectError(await app.request({ method: 'DELETE', url: '/v1/media/anything' }), 401, 'UNAUTHORIZED');
  });

  it('takes an API key as well as a session', async () => {
    const key = (await app.request({ method: 'POST', url: '/v1/api-keys', token: owner.token, body: { name: 'uploader' } })).json().data.key as string;
    const media = await uploaded(images.gif, key);
    assert.equal((await app.request({ method: 'GET', url: `/media/${media.id}` })).statusCode, 200);
  });

  it('takes a browser session cookie only with its CSRF token', async () => {
    const login = await app.request({
      method: 'POST',
      url: '/v1/auth/browser/signup',
      body: { email: `media-cookie-${Date.now()}@example.test`, password: 'correct horse battery' },
    });
    const cookies = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .map((line) => line.split(';')[0])
      .join('; ');
    const csrfToken = login.json().data.csrfToken as string;
    const send = (headers: Record<string, string>) =>
      app.request({ method: 'POST', url: '/v1/media', rawBody: images.png, headers: { 'content-type': 'image/png', cookie: cookies, ...headers } });
    expectError(await send({}), 403, 'FORBIDDEN');
    const response = await send({ 'x-csrf-token': csrfToken });
    assert.equal(response.statusCode, 201, response.body);
  });

  it('lists only my uploads, newest first, in pages', async () => {
    const mine = await app.signup();
    const first = await uploaded(images.png, mine.token);
    const second = await uploaded(images.jpeg, mine.token);
    await uploaded(images.gif, stranger.token);
    const page = (await app.request({ method: 'GET', url: '/v1/media?limit=1', token: mine.token })).json();
    assert.deepEqual(page.pagination, { limit: 1, offset: 0, total: 2, hasMore: true });
    const next = (await app.request({ method: 'GET', url: '/v1/media?limit=1&offset=1', token: mine.token })).json();
    const ids = [page.data[0].id, next.data[0].id];
    assert.deepEqual(new Set(ids), new Set([first.id, second.id]));
    expectError(await app.request({ method: 'GET', url: '/v1/media?limit=0', token: mine.token }), 400, 'BAD_REQUEST');
  });

  it("lets only the owner delete an upload: someone else's is 404 and stays served", async () => {
    const media = await uploaded(images.webp);
    expectError(await app.request({ method: 'DELETE', url: `/v1/media/${media.id}`, token: stranger.token }), 404, 'NOT_FOUND');
    assert.equal((await app.request({ method: 'GET', url: `/media/${media.id}` })).statusCode, 200);

    const deleted = await app.request({ method: 'DELETE', url: `/v1/media/${media.id}`, token: owner.token });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(deleted.json(), { data: { id: media.id, deleted: true } });
    const gone = expectError(await app.request({ method: 'GET', url: `/media/${media.id}` }), 404, 'NOT_FOUND');
    assert.equal(gone.message, 'Media not found');
    expectError(await app.request({ method: 'DELETE', url: `/v1/media/${media.id}`, token: owner.token }), 404, 'NOT_FOUND');
  });

  it('answers 404 JSON for a media id that never existed', async () => {
    expectError(await app.request({ method: 'GET', url: '/media/00000000-0000-4000-8000-000000000000' }), 404, 'NOT_FOUND');
  });

  it('refuses an upload past the account quota with a 409 that says how much is used, and takes uploads again after a delete', async () => {
    const person = await app.signup();
    // About 1.4 MB of valid PNG: a big ancillary chunk inside the structure.
    // (A chunk of pixel data: metadata chunks are dropped before the quota counts.)
    const big = images.pngWithChunk(images.png, 'IDAT', Buffer.alloc(1_400_000));
    const first = await uploaded(big, person.token);
    const error = expectError(await upload(big, person.token), 409, 'CONFLICT');
    assert.match(error.message, /quota of 2 MB \(1\.3 MB used\)/);
    // Another account has a quota of its own.
    await uploaded(big, stranger.token);
    await app.request({ method: 'DELETE', url: `/v1/media/${first.id}`, token: person.token });
    await uploaded(big, person.token);
  });
});
