/**
 * A stand-in OpenTelemetry collector for bench/tracing.ts: accepts every OTLP/HTTP export on PORT,
 * reads it, answers 200 and discards it. GET / answers once it listens; GET /stats tells how many
 * exports and bytes it took, so the bench can show the traced service really exported.
 */
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, bytes }));
    return;
  }
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    exports++;
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
