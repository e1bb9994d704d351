import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { InputSchema } from '../../src/modules/registry/index.ts';
import { createModelExtractor, type FetchLike } from '../../src/modules/extraction/index.ts';

const schema: InputSchema = {
  prompt: { type: 'string', required: true, description: 'What the picture should show' },
  style: { type: 'string', enum: ['photo', 'watercolor', 'anime'], default: 'photo' },
  width: { type: 'number', default: 1024 },
  transparent_background: { type: 'boolean', default: false },
  count: { type: 'number' },
};

const task = { title: 'Fox picture', description: 'A red fox in the snow, anime style, width: 640, 2 images, transparent background' };
// What the built-in extractor makes of `task`: the answer whenever the model cannot be used.
const builtinAnswer = {
  input: {
    prompt: 'A red fox in the snow, anime style, width: 640, 2 images, transparent background',
    style: 'anime',
    width: 640,
    transparent_background: true,
    count: 2,
  },
  missing: [],
};

/** A stand-in for an OpenAI-compatible server on loopback; each test sets how it answers. */
let handle: (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;
let received: { url: string | undefined; authorization: string | undefined; body: Record<string, unknown> }[] = [];
const server = createServer((req, res) => {
  let text = '';
  req.on('data', (chunk: Buffer) => (text += chunk.toString()));
  req.on('end', () => {
    const body = JSON.parse(text) as Record<string, unknown>;
    received.push({ url: req.url, authorization: req.headers.authorization, body });
    handle(body, req, res);
  });
});
let baseUrl = '';

const answer = (res: ServerResponse, content: string) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }),
  );
};

function extractorWithLog(timeoutMs = 2000) {
  const fallbacks: string[] = [];
  const extractor = createModelExtractor({
    url: baseUrl,
    model: 'test-model',
    apiKey: 'sk-test',
    timeoutMs,
    onFallback: (error) => fallbacks.push(error.message),
  });
  return { extractor, fallbacks };
}

describe('model extractor against an OpenAI-compatible server', () => {
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  beforeEach(() => {
    received = [];
  });

  it('asks for JSON shaped by the input schema and uses a good answer, filling defaults', async () => {
    handle = (_body, _req, res) =>
      answer(res, '```json\n{"prompt": "a red fox in the snow", "style": "Anime", "count": 2, "transparent_background": true}\n```');
    const { extractor, fallbacks } = extractorWithLog();
    const result = await extractor.extract(schema, task);
    assert.deepEqual(result, { input: { prompt: 'a red fox in the snow', style: 'anime', width: 1024, transparent_background: true, count: 2 }, missing: [] });
    assert.deepEqual(fallbacks, []);

    assert.equal(received.length, 1);
    const [request] = received;
    assert.equal(request?.url, '/v1/chat/completions');
    assert.equal(request?.authorization, 'Bearer sk-test');
    assert.equal(request?.body.model, 'test-model');
    const format = request?.body.response_format as {
      type: string;
      json_schema: { schema: { properties: Record<string, unknown>; additionalProperties: boolean } };
    };
    assert.equal(format.type, 'json_schema');
    assert.deepEqual(format.json_schema.schema.properties.style, { type: 'string', enum: ['photo', 'watercolor', 'anime'] });
    assert.equal(format.json_schema.schema.additionalProperties, false);
    const messages = request?.body.messages as { role: string; content: string }[];
    assert.ok(messages.some((m) => m.role === 'user' && m.content.includes(task.description) && m.content.includes(task.title)));
  });

  it('drops values of the wrong type or outside the enum, then fills defaults and reports the required field missing', async () => {
    handle = (_body, _req, res) =>
      answer(res, JSON.stringify({ prompt: 42, style: 'oil painting', width: '640', transparent_background: 'yes', count: 3, seed: 7 }));
    const { extractor, fallbacks } = extractorWithLog();
    const result = await extractor.extract(schema, task);
    assert.deepEqual(result, { input: { style: 'photo', width: 1024, transparent_background: false, count: 3 }, missing: ['prompt'] });
    assert.deepEqual(fallbacks, []);
  });

  it('falls back to the built-in extractor when the server answers an error', async () => {
    handle = (_body, _req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"overloaded"}}');
    };
    const { extractor, fallbacks } = extractorWithLog();
    assert.deepEqual(await extractor.extract(schema, task), builtinAnswer);
    assert.deepEqual(fallbacks, ['extraction model answered HTTP 500']);
  });

  it('falls back when the answer is not a JSON object', async () => {
    handle = (_body, _req, res) => answer(res, 'Sure! The prompt is a red fox.');
    const { extractor, fallbacks } = extractorWithLog();
    assert.deepEqual(await extractor.extract(schema, task), builtinAnswer);
    assert.equal(fallbacks.length, 1);
  });

  it('falls back when the answer nests deeper than 64 levels, before anything walks it', async () => {
    handle = (_body, _req, res) => answer(res, `{"prompt":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    const { extractor, fallbacks } = extractorWithLog();
    assert.deepEqual(await extractor.extract(schema, task), builtinAnswer);
    assert.equal(fallbacks.length, 1);
    assert.match(fallbacks[0]!, /deeper than 64/);
  });

  it('falls back when the answer holds text no database stores as given (NUL, a lone surrogate)', async () => {
    for (const content of ['{"prompt":"a fox\\u0000"}', '{"prompt":"a fox \\ud800"}']) {
      handle = (_body, _req, res) => answer(res, content);
      const { extractor, fallbacks } = extractorWithLog();
      assert.deepEqual(await extractor.extract(schema, task), builtinAnswer);
      assert.match(fallbacks[0] ?? '', /\/prompt must not contain/);
    }
  });

  it('gives up after the timeout, aborts the request and falls back', async () => {
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => (closed = resolve));
    // Never answers; the extractor must not wait for it.
    handle = (_body, _req, res) => res.on('close', () => closed());
    const { extractor, fallbacks } = extractorWithLog(200);
    assert.deepEqual(await extractor.extract(schema, task), builtinAnswer);
    assert.deepEqual(fallbacks, ['extraction model gave no answer within 200 ms']);
    await requestClosed;
  });
});

describe('model extractor with an injected fetch', () => {
  it('sends through the given function to the chat completions URL of a /v1 base', async () => {
    const calls: string[] = [];
    const fetch: FetchLike = async (url) => {
      calls.push(url);
      return { ok: true, status: 200, text: async () => JSON.stringify({ choices: [{ message: { content: '{"prompt":"a fox"}' } }] }) };
    };
    const extractor = createModelExtractor({ url: 'https://models.example.net/v1/', model: 'm', fetch });
    assert.deepEqual(await extractor.extract(schema, task), {
      input: { prompt: 'a fox', style: 'photo', width: 1024, transparent_background: false },
      missing: [],
    });
    assert.deepEqual(calls, ['https://models.example.net/v1/chat/completions']);
  });

  it('times out even when the function ignores the abort signal', async () => {
    const fetch: FetchLike = () => new Promise(() => undefined);
    const fallbacks: string[] = [];
    const extractor = createModelExtractor({
      url: 'https://models.example.net',
      model: 'm',
      fetch,
      timeoutMs: 50,
      onFallback: (e) => fallbacks.push(e.message),
    });
    assert.deepEqual(await extractor.extract(schema, task), builtinAnswer);
    assert.deepEqual(fallbacks, ['extraction model gave no answer within 50 ms']);
  });

  it('does not call the model for a schema without fields', async () => {
    const fetch: FetchLike = () => Promise.reject(new Error('must not be called'));
    const extractor = createModelExtractor({ url: 'https://models.example.net', model: 'm', fetch, onFallback: () => assert.fail('no fallback expected') });
    assert.deepEqual(await extractor.extract({}, task), { input: {}, missing: [] });
  });
});
