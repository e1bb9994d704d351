import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';

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
  // Nothing that answering does not need runs before the server listens: the background work
  // (deliveries, log sequencers, witnesses, sweeps) and discovery's warm-up start after.
  const app = await buildApp(config, { deferBackground: true });
  await app.server.listen({ port: config.port, host: config.host });
  await app.startBackground();
  // Agents and their stored vectors are read now, not by the first search.
  app.discovery.warm();

  let closing = false;
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
