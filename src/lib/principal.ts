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
}

export interface Authenticator {
  /** Answers synchronously when it can (a cached credential), so the common case costs no promise. */
  authenticate(token: string): Principal | null | Promise<Principal | null>;
}
