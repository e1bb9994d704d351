/** The baseline every bench compares against: bare Fastify answering {hello:'world'} on PORT. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });

process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
process.on('SIGINT', () => void app.close().then(() => process.exit(0)));
