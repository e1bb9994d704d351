/** The test app listening on a loopback port, for clients that speak real HTTP (the SDK and CLI). */
import type { AddressInfo } from 'node:net';
import { asTestApp, startTestApp, type TestApp } from './app.ts';

export async function startListeningApp(env: Record<string, string> = {}): Promise<{ app: TestApp; url: string }> {
  const app = await startTestApp(env);
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${address.port}` };
}

/** A loopback URL where nothing listens: a port the OS handed out and that was closed again. */
export async function deadUrl(): Promise<string> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * `app` (or any node of it) reached over real HTTP at `baseUrl`, e.g. through a proxy in front of
 * several nodes: the same helpers then work request by request on whichever node answers.
 */
export function overHttp(app: TestApp, baseUrl: string): TestApp {
  const send: TestApp['request'] = async ({ method, url, token, body, headers, rawBody }) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(rawBody !== undefined
        ? { body: typeof rawBody === 'string' ? rawBody : new Uint8Array(rawBody) }
        : body !== undefined
          ? { body: JSON.stringify(body) }
          : {}),
    });
    const text = await response.text();
    const responseHeaders: Record<string, string | string[]> = Object.fromEntries(response.headers);
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) responseHeaders['set-cookie'] = cookies;
    return { statusCode: response.status, body: text, headers: responseHeaders, json: () => JSON.parse(text) } as unknown as Awaited<
      ReturnType<TestApp['request']>
    >;
  };
  return asTestApp(app, app.databaseSchema, async () => {}, send);
}
