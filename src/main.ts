import type { Server } from 'node:http';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';

/** How long a node that nobody asks anything waits before it starts its background work anyway. */
const FIRST_ANSWER_WAIT_MS = 1_000;

/** Resolves once the server has finished sending its first response (or the client left), or after `waitMs`. */
function firstAnswer(server: Server, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    server.once('request', (_request, response) =>
      response.once('close', () => {
        clearTimeout(timer);
        resolve();
      }),
    );
  });
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // Nothing that answering does not need runs before the node's first answer: the background work
  // (deliveries, log sequencers, witnesses, sweeps) and discovery's warm-up (the sentence model's
  // worker, agents and their stored vectors) start once it has answered a first request, typically a
  // supervisor's /health, or FIRST_ANSWER_WAIT_MS after listening if none comes. /ready says
  // "starting" until the warm-up is done.
  const app = await buildApp(config, { deferBackground: true });
  await app.server.listen({ port: config.port, host: config.host });
  let closing = false;
  const begin = firstAnswer(app.server.server, FIRST_ANSWER_WAIT_MS);
  app.discovery.warm(begin);
  void begin
    .then(() => (closing ? undefined : app.startBackground()))
    .catch((error: unknown) => {
      console.error('agentry failed to start its background work:', error instanceof Error ? error.message : error);
      process.exit(1);
    });

  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.server.log.info({ signal }, 'shutting down: refusing new connections, answering on open ones until their clients close them');
    // A stuck request, or a close step that hangs past the grace, must not keep the process alive forever.
    const timer = setTimeout(() => process.exit(1), config.shutdownGraceMs + 25_000);
    timer.unref();
    await app.drain();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error('agentry failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
