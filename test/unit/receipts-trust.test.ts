import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findRegisteredIssuer, type RegisteredIssuer } from '../../src/modules/receipts/trust.ts';

describe('findRegisteredIssuer', () => {
  const key = 'ed25519:issuer';
  const real: RegisteredIssuer = {
    id: '0193a1b2-0000-7000-8000-000000000001',
    slug: 'code-reviewer',
    name: 'Code Reviewer',
    pubkey: key,
    ownerId: 'alice',
    provenPublic: true,
  };
  // Anyone may register a copy of a key, and a name equal to another agent's id becomes that slug.
  const impostor: RegisteredIssuer = {
    id: '0193a1b2-0000-7000-8000-000000000002',
    slug: real.id,
    name: 'Code Reviewer',
    pubkey: key,
    ownerId: 'mallory',
    provenPublic: false,
  };

  it('prefers the agent whose id is the name, whatever order the agents come in', () => {
    assert.equal(findRegisteredIssuer(new Map([[key, [impostor, real]]]), key, real.id), real);
    assert.equal(findRegisteredIssuer(new Map([[key, [real, impostor]]]), key, real.id), real);
  });

  it('finds an agent by slug under the same key, and nothing under another key', () => {
    assert.equal(findRegisteredIssuer(new Map([[key, [impostor, real]]]), key, 'code-reviewer'), real);
    assert.equal(findRegisteredIssuer(new Map([[key, [real]]]), 'ed25519:other', real.id), undefined);
  });
});
