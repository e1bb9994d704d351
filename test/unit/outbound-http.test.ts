import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  createOutboundClient,
  isPublicAddress,
  publicFailureReason,
  type HostLookup,
  type OutboundClientOptions,
  type OutboundResult,
} from '../../src/lib/outbound-http.ts';

interface TestServer {
  port: number;
  connections: () => number;
  requests: IncomingMessage[];
  close: () => Promise<void>;
}

// Listens on every local address, IPv4 and IPv6, so any loopback spelling that got through would be counted.
async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return (server.address() as AddressInfo).port;
}

async function startHttpServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createHttpServer((request, response) => {
    requests.push(request);
    handler(request, response);
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    port,
    connections: () => connections,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A TCP server that accepts connections and never says a word. */
async function startSilentServer(): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  const port = await listen(server);
  return {
    port,
    connections: () => sockets.size,
    requests: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
  });
}

const fixedLookup =
  (answers: Record<string, string[]>): HostLookup =>
  async (hostname) =>
    answers[hostname] ?? Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));

function client(options: Partial<OutboundClientOptions> & { allowPrivate: boolean }) {
  const created = createOutboundClient(options);
  clients.push(created);
  return created;
}
const clients: ReturnType<typeof createOutboundClient>[] = [];
after(async () => {
  await Promise.all(clients.map((each) => each.close()));
});

function failureOf(result: OutboundResult) {
  assert.equal(result.ok, false, JSON.stringify(result));
  if (result.ok) throw new Error('unreachable');
  return result;
}

describe('isPublicAddress', () => {
  it('accepts public unicast IPv4 and IPv6, mapped or not', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])
      assert.equal(isPublicAddress(address), true, address);
  });

  it('refuses every special-purpose range, metadata addresses and non-addresses', () => {
    const refused = [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '169.254.170.2',
      '100.64.0.1',
      '100.100.100.200',
      '0.0.0.0',
      '0.1.2.3',
      '255.255.255.255',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '192.0.0.170',
      '192.0.2.1',
      '198.18.0.1',
      '198.51.100.1',
      '203.0.113.1',
      '::1',
      '::',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      'fd00:ec2::254',
      'fec0::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1',
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:db8::1',
      '100::1',
      '4000::1',
      '127.1',
      '2130706433',
      '0x7f.0.0.1',
      'localhost',
      '',
      'not an address',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
  });
});

describe('outbound client: refused destinations', () => {
  let target: TestServer;
  before(async () => {
    target = await startHttpServer((_request, response) => response.end('reached'));
  });
  after(() => target.close());

  it('refuses loopback, private, link-local and metadata literals in every spelling without dialing', async () => {
    const start = target.connections();
    const outbound = client({ allowPrivate: false });
    const hosts = [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '2130706433',
      '0x7f.1',
      '127.1',
      '0177.0.0.1',
      '0',
      '0.0.0.0',
      '[::]',
      '10.0.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '[fd00:ec2::254]',
      '[::ffff:169.254.169.254]',
    ];
    for (const host of hosts) {
      const result = failureOf(await outbound.send({ url: `http://${host}:${target.port}/hook`, body: '{}' }));
      assert.equal(result.failure.kind, 'blocked', `${host}: ${result.failure.message}`);
      assert.match(result.failure.message, /not a public address|metadata/);
      assert.equal(result.response, undefined);
    }
    assert.equal(target.connections(), start);
  });

  it('refuses a name when any of its DNS answers is not public', async () => {
    const start = target.connections();
    const asked: string[] = [];
    const answers = fixedLookup({
      'loopback.test': ['127.0.0.1'],
      'mixed.test': ['93.184.215.14', '127.0.0.1'],
      'mapped.test': ['::ffff:127.0.0.1'],
      'six.test': ['2606:4700:4700::1111', '::1'],
      'metadata.test': ['169.254.169.254'],
    });
    const outbound = client({
      allowPrivate: false,
      lookup: (hostname) => {
        asked.push(hostname);
        return answers(hostname);
      },
    });
    for (const name of ['loopback.test', 'mixed.test', 'mapped.test', 'six.test', 'metadata.test']) {
      const result = failureOf(await outbound.send({ url: `https://${name}:${target.port}/` }));
      assert.equal(result.failure.kind, 'blocked', `${name}: ${result.failure.message}`);
      assert.match(result.failure.message, new RegExp(`^${name.replace('.', '\\.')} resolves to `));
    }
    assert.deepEqual(asked, ['loopback.test', 'mixed.test', 'mapped.test', 'six.test', 'metadata.test']);
    assert.equal(target.connections(), start);
  });

  it('checks names resolved by the system resolver too', async () => {
    const start = target.connections();
    const result = failureOf(await client({ allowPrivate: false }).send({ url: `http://localhost:${target.port}/` }));
    assert.equal(result.failure.kind, 'blocked');
    assert.match(result.failure.message, /^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/);
    assert.equal(target.connections(), start);

    const allowed = await client({ allowPrivate: true }).send({ url: `http://localhost:${target.port}/` });
    assert.equal(allowed.ok, true);
    assert.equal(allowed.response!.body, 'reached');
  });

  it('checks the answer on every new connection, so a name that rebinds to loopback is refused', async () => {
    const start = target.connections();
    let calls = 0;
    const outbound = client({
      allowPrivate: false,
      // First answer is a blocked address too, since nothing public is reachable offline; what matters
      // is that the lookup runs for each connection instead of reusing an earlier verdict.
      lookup: async () => (++calls === 1 ? ['10.1.2.3'] : ['127.0.0.1']),
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = failureOf(await outbound.send({ url: `http://rebind.test:${target.port}/` }));
      assert.equal(result.failure.kind, 'blocked');
    }
    assert.equal(calls, 2);
    assert.equal(target.connections(), start);
  });

  it('keeps metadata addresses refused even when private endpoints are allowed', async () => {
    const outbound = client({ allowPrivate: true, lookup: fixedLookup({ 'metadata.test': ['169.254.169.254'] }) });
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://metadata.test/']) {
      const result = failureOf(await outbound.send({ url, method: 'GET' }));
      assert.equal(result.failure.kind, 'blocked', url);
      assert.match(result.failure.message, /metadata/);
    }
  });

  it('reports unresolvable names and empty answers as dns failures', async () => {
    const outbound = client({ allowPrivate: false, lookup: fixedLookup({ 'empty.test': [], 'garbage.test': ['not-an-ip'] }) });
    for (const [name, pattern] of [
      ['missing.test', /could not resolve missing\.test \(ENOTFOUND\)/],
      ['empty.test', /no addresses/],
      ['garbage.test', /malformed/],
    ] as const) {
      const result = failureOf(await outbound.send({ url: `http://${name}/` }));
      assert.equal(result.failure.kind, 'dns', name);
      assert.match(result.failure.message, pattern);
    }
  });

  it('tells people the same thing for a name that does not resolve and one that resolves inside: no probing of internal DNS', async () => {
    const outbound = client({ allowPrivate: false, lookup: fixedLookup({ 'intranet.test': ['10.0.0.7'] }) });
    const shown = await Promise.all(
      ['http://intranet.test/', 'http://missing.test/'].map(async (url) =>
        publicFailureReason(failureOf(await outbound.send({ url })).failure, "the agent's endpoint"),
      ),
    );
    assert.deepEqual(shown, ["the agent's endpoint could not be reached at a public address", "the agent's endpoint could not be reached at a public address"]);
  });

  it('refuses URLs that are malformed, not http(s), or carry credentials', async () => {
    const start = target.connections();
    const outbound = client({ allowPrivate: true });
    for (const url of [
      'not a url',
      '',
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://127.0.0.1/',
      `http://user:secret@127.0.0.1:${target.port}/`,
      `http://user@127.0.0.1:${target.port}/`,
    ]) {
      const result = failureOf(await outbound.send({ url }));
      assert.equal(result.failure.kind, 'invalid_url', url);
    }
    assert.equal(target.connections(), start);
  });
});

describe('outbound client: allowed destinations', () => {
  let target: TestServer;
  before(async () => {
    target = await startHttpServer(async (request, response) => {
      const body = await readBody(request);
      const status = Number(new URL(request.url!, 'http://x').searchParams.get('status') ?? 200);
      response.writeHead(status, { 'content-type': 'application/json', 'x-echo': 'yes' });
      response.end(JSON.stringify({ method: request.method, path: request.url, body, signature: request.headers['webhook-signature'] ?? null }));
    });
  });
  after(() => target.close());

  it('reaches a loopback server by literal and by name when private endpoints are allowed', async () => {
    const outbound = client({ allowPrivate: true, lookup: fixedLookup({ 'agent.test': ['127.0.0.1'], 'dual.test': ['::1', '127.0.0.1'] }) });
    const before = target.connections();
    const urls = [
      `http://127.0.0.1:${target.port}/hook?x=1#fragment`,
      `http://[::1]:${target.port}/hook?x=1`,
      `http://dual.test:${target.port}/hook?x=1`,
      `http://agent.test:${target.port}/hook?x=1`,
    ];
    for (const url of urls) {
      const result = await outbound.send({ url, headers: { 'webhook-signature': 'v1,abc', 'content-type': 'application/json' }, body: '{"a":1}' });
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(result.response!.status, 200);
      assert.equal(result.response!.headers['x-echo'], 'yes');
      assert.equal(result.response!.truncated, false);
      assert.deepEqual(JSON.parse(result.response!.body), { method: 'POST', path: '/hook?x=1', body: '{"a":1}', signature: 'v1,abc' });
    }
    assert.equal(target.requests.at(-1)!.headers.host, `agent.test:${target.port}`);
    assert.ok(target.connections() > before);
  });

  it('sends GET requests without a body', async () => {
    const outbound = client({ allowPrivate: true });
    const result = await outbound.send({ url: `http://127.0.0.1:${target.port}/manifest.json`, method: 'GET' });
    assert.equal(result.ok, true);
    assert.deepEqual(JSON.parse(result.response!.body), { method: 'GET', path: '/manifest.json', body: '', signature: null });
  });

  it('treats only 2xx as success and returns the response of any other status', async () => {
    const outbound = client({ allowPrivate: true });
    const created = await outbound.send({ url: `http://127.0.0.1:${target.port}/?status=201` });
    assert.equal(created.ok, true);
    assert.equal(created.response!.status, 201);
    for (const status of [400, 404, 410, 500, 503]) {
      const result = failureOf(await outbound.send({ url: `http://127.0.0.1:${target.port}/?status=${status}` }));
      assert.equal(result.failure.kind, 'status');
      assert.equal(result.failure.message, `answered ${status}`);
      assert.equal(result.response!.status, status);
      assert.equal(JSON.parse(result.response!.body).path, `/?status=${status}`);
    }
  });
});

describe('outbound client: redirects', () => {
  it('never follows a redirect, even to an allowed address', async () => {
    const destination = await startHttpServer((_request, response) => response.end('followed'));
    const redirector = await startHttpServer((_request, response) => {
      response.writeHead(307, { location: `http://127.0.0.1:${destination.port}/internal` });
      response.end('moved');
    });
    try {
      for (const allowPrivate of [true, false]) {
        const outbound = client({ allowPrivate, lookup: fixedLookup({ 'redirector.test': ['127.0.0.1'] }) });
        const url = allowPrivate ? `http://127.0.0.1:${redirector.port}/hook` : `http://redirector.test:${redirector.port}/hook`;
        const result = failureOf(await outbound.send({ url, body: '{}' }));
        if (allowPrivate) {
          assert.equal(result.failure.kind, 'redirect');
          assert.match(result.failure.message, new RegExp(`307 \\(to http://127\\.0\\.0\\.1:${destination.port}/internal\\)`));
          assert.equal(result.response!.status, 307);
          assert.equal(result.response!.body, 'moved');
        } else {
          assert.equal(result.failure.kind, 'blocked');
        }
      }
      assert.equal(redirector.connections(), 1);
      assert.equal(destination.connections(), 0);
    } finally {
      await redirector.close();
      await destination.close();
    }
  });
});

describe('outbound client: response cap', () => {
  it('keeps the first bytes of an endless body and abandons the rest', async () => {
    let abandoned: () => void = () => {};
    const closed = new Promise<void>((resolve) => (abandoned = resolve));
    const endless = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
      };
      response.on('drain', pump);
      response.on('close', abandoned);
      pump();
    });
    try {
      const outbound = client({ allowPrivate: true, maxResponseBytes: 1000 });
      const result = await outbound.send({ url: `http://127.0.0.1:${endless.port}/` });
      assert.equal(result.ok, true);
      assert.equal(result.response!.body, 'x'.repeat(1000));
      assert.equal(result.response!.truncated, true);
      await closed;

      const strict = failureOf(await outbound.send({ url: `http://127.0.0.1:${endless.port}/`, requireFullBody: true }));
      assert.equal(strict.failure.kind, 'too_large');
      assert.equal(strict.response!.body.length, 1000);
    } finally {
      await endless.close();
    }
  });

  it('returns a body exactly at the cap untruncated', async () => {
    const exact = await startHttpServer((_request, response) => response.end('y'.repeat(1000)));
    try {
      const outbound = client({ allowPrivate: true, maxResponseBytes: 1000 });
      const result = await outbound.send({ url: `http://127.0.0.1:${exact.port}/`, requireFullBody: true });
      assert.equal(result.ok, true);
      assert.equal(result.response!.body.length, 1000);
      assert.equal(result.response!.truncated, false);
    } finally {
      await exact.close();
    }
  });
});

describe('outbound client: timeouts and connection failures', () => {
  it('gives up on a server that accepts and never answers after the whole-attempt timeout', async () => {
    const silent = await startSilentServer();
    try {
      const outbound = client({ allowPrivate: true, totalTimeoutMs: 300 });
      const result = failureOf(await outbound.send({ url: `http://127.0.0.1:${silent.port}/`, body: '{}' }));
      assert.equal(result.failure.kind, 'timeout');
      assert.equal(result.failure.message, 'no complete response within 300 ms');
      assert.equal(silent.connections(), 1);
    } finally {
      await silent.close();
    }
  });

  it('counts the body against the whole-attempt timeout, not just the gaps between chunks', async () => {
    const trickle = await startHttpServer((_request, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write('.'), 20);
      response.on('close', () => clearInterval(timer));
    });
    try {
      const outbound = client({ allowPrivate: true, totalTimeoutMs: 300 });
      const result = failureOf(await outbound.send({ url: `http://127.0.0.1:${trickle.port}/` }));
      assert.equal(result.failure.kind, 'timeout');
    } finally {
      await trickle.close();
    }
  });

  it('applies the connect timeout to a TLS handshake that never completes', async () => {
    const silent = await startSilentServer();
    try {
      const outbound = client({ allowPrivate: true, connectTimeoutMs: 200, totalTimeoutMs: 5000 });
      const result = failureOf(await outbound.send({ url: `https://127.0.0.1:${silent.port}/` }));
      assert.equal(result.failure.kind, 'timeout');
      assert.equal(result.failure.message, 'no connection within 200 ms');
      assert.equal(silent.connections(), 1);
    } finally {
      await silent.close();
    }
  });

  it('applies the connect timeout to a DNS lookup that never answers', async () => {
    const outbound = client({ allowPrivate: false, connectTimeoutMs: 200, totalTimeoutMs: 5000, lookup: () => new Promise(() => {}) });
    const result = failureOf(await outbound.send({ url: 'http://hanging.test/' }));
    assert.equal(result.failure.kind, 'timeout');
    assert.equal(result.failure.message, 'no connection within 200 ms');
  });

  it('reports a refused connection and a failed TLS handshake as connect failures', async () => {
    const closed = await startSilentServer();
    await closed.close();
    const plain = await startHttpServer((_request, response) => response.end('plain'));
    try {
      const outbound = client({ allowPrivate: true });
      const refused = failureOf(await outbound.send({ url: `http://127.0.0.1:${closed.port}/` }));
      assert.equal(refused.failure.kind, 'connect');
      assert.match(refused.failure.message, /ECONNREFUSED/);
      const notTls = failureOf(await outbound.send({ url: `https://127.0.0.1:${plain.port}/` }));
      assert.equal(notTls.failure.kind, 'connect', notTls.failure.message);
    } finally {
      await plain.close();
    }
  });

  it('reports a connection dropped mid-response as a network failure', async () => {
    const dropper = await startHttpServer((request) => request.socket.destroy());
    try {
      const outbound = client({ allowPrivate: true });
      const result = failureOf(await outbound.send({ url: `http://127.0.0.1:${dropper.port}/`, body: '{}' }));
      assert.equal(result.failure.kind, 'network');
    } finally {
      await dropper.close();
    }
  });
});
