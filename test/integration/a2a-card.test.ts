import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let baseUrl: string;

before(async () => {
  app = await startTestApp({ PUBLIC_URL: 'https://agentry.example.test' });
  baseUrl = await app.server.listen({ port: 0, host: '127.0.0.1' });
});
after(() => app.close());

test('the service publishes its A2A agent card, which the SDK resolves, with the public URL', async () => {
  const card = await new DefaultAgentCardResolver().resolve(baseUrl);
  assert.equal(card.name, 'Agentry');
  assert.deepEqual(
    card.skills.map((skill) => skill.id),
    ['find-agents', 'route-task'],
  );
  assert.equal(card.provider?.url, 'https://agentry.example.test');
  assert.equal(card.documentationUrl, 'https://agentry.example.test/docs');
  assert.match(card.skills[1]!.description, /https:\/\/agentry\.example\.test\/v1\/tasks/);
  assert.equal(card.securitySchemes.bearer?.scheme?.$case, 'httpAuthSecurityScheme');
  // Its own A2A endpoint, at the public URL, in the protocol version the SDK speaks; it takes the bearer credential.
  assert.deepEqual(card.supportedInterfaces, [{ url: 'https://agentry.example.test/a2a', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }]);
  assert.equal(card.capabilities?.streaming, true);
  assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);

  const response = await app.request({ method: 'GET', url: '/.well-known/agent-card.json' });
  assert.equal(response.statusCode, 200);
  // The served JSON is exactly the SDK's serialisation of a valid card.
  assert.deepEqual(AgentCard.toJSON(AgentCard.fromJSON(response.json())), response.json());
});
