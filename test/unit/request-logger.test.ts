import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { installLazyRequestLoggers } from '../../src/http/request-logger.ts';

function appLoggingTo(lines: Record<string, unknown>[], level: string) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level, stream }, disableRequestLogging: true });
  installLazyRequestLoggers(app);
  app.get('/', async (request) => {
    request.log.info('an info line');
    request.log.warn({ extra: 1 }, 'a warning');
    request.log.child({ step: 'inner' }).error('from a child');
    return { ok: true };
  });
  return app;
}

describe('request loggers', () => {
  it("write enabled levels with the request's id, and drop the others", async () => {
    const lines: Record<string, unknown>[] = [];
    const app = appLoggingTo(lines, 'warn');
    const response = await app.inject({ method: 'GET', url: '/', headers: { 'x-request-id': 'ignored-here' } });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['a warning', 'from a child'],
    );
    assert.ok(lines.every((l) => typeof l.reqId === 'string' && l.reqId.length > 0));
    assert.equal(lines[0]!.extra, 1);
    assert.equal(lines[1]!.step, 'inner');
    await app.close();
  });

  it('follow the configured level', async () => {
    const lines: Record<string, unknown>[] = [];
    const app = appLoggingTo(lines, 'info');
    await app.inject({ method: 'GET', url: '/' });
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['an info line', 'a warning', 'from a child'],
    );
    await app.close();
  });
});
