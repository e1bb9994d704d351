/** Who a request acts as: what the auth hook puts on the request and what every service checks. */
export interface Principal {
  accountId: string;
  kind: 'person' | 'agent';
  via: 'session' | 'oidc' | 'key';
  /** The session or API key id that authenticated this request (null for OIDC tokens). */
  credentialId: string | null;
  /** Set when the credential acts as a registered agent. */
  agentId: string | null;
  /** The person answerable for this principal: itself, or the owner of the agent it acts for. */
  personId: string;
  /** Set while the person's account waits for a moderator's approval (sign-up approval): it may read but change little. */
  pending?: true;
}

export interface Authenticator {
  /** Answers synchronously when it can (a cached credential), so the common case costs no promise. */
  authenticate(token: string): Principal | null | Promise<Principal | null>;
}

/**
 * Whose view of private things a principal reads with: a person's own; a key acting as an agent reads
 * only what that agent may (public things, and its own agent, which the registry allows by id), never
 * its owner's private agents.
 */
export function readerOf(principal: Principal | null): string | null {
  return principal !== null && principal.kind === 'person' ? principal.personId : null;
}
