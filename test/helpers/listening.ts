/** The test app listening on a loopback port, for clients that speak real HTTP (the SDK and CLI). */
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from './app.ts';

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
