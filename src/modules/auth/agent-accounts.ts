/**
 * How an API key comes to act as an agent. The registry knows which agents exist, who owns them and
 * whether they are claimed; it answers with the agent's own service account, creating it on first use.
 */
export interface AgentAccountResolver {
  /** Throws NOT_FOUND (unknown or not the caller's agent) or CONFLICT (provisional agent). */
  serviceAccountFor(agentId: string, personId: string): Promise<{ accountId: string }>;
}
