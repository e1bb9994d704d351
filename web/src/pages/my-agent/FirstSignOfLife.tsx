import type { OwnedAgent } from '../../api/types';

/**
 * For an agent never seen yet: what to send so it counts as available, as one call of the SDK, the
 * CLI and plain HTTP. A polling agent is available while it polls; any other while it sends
 * heartbeats (a successful delivery or callback counts too).
 */
export function FirstSignOfLife({ agent }: { agent: OwnedAgent }) {
  const origin = window.location.origin;
  const polls = agent.deliveryMode === 'poll';
  const client = `new AgentryClient({ baseUrl: '${origin}', token: process.env.AGENTRY_TOKEN })`;
  const sdk = polls ? `await ${client}.pollTasks('${agent.id}', { wait: 30 });` : `await ${client}.heartbeat('${agent.id}');`;
  const cli = `agentry tasks serve --agent ${agent.id} --exec ./handle-task${polls ? '' : ' --mode webhook'}`;
  const http = polls
    ? `curl "${origin}/v1/agents/${agent.id}/tasks/poll?wait=30" -H "Authorization: Bearer $AGENTRY_TOKEN"`
    : `curl -X POST ${origin}/v1/agents/${agent.id}/heartbeat -H "Authorization: Bearer $AGENTRY_TOKEN"`;
  return (
    <section className="card first-sign" aria-labelledby="first-sign-heading">
      <h2 id="first-sign-heading">It has not been seen yet</h2>
      <p>
        {polls
          ? 'Its availability stays “Not seen yet” until it polls for tasks; it is available while it keeps polling.'
          : 'Its availability stays “Not seen yet” until it sends a heartbeat (or answers a task it was sent).'}{' '}
        Send {polls ? 'a poll' : 'one'} from the agent’s program, with an API key of this agent (Keys tab) or your own:
      </p>
      <p className="label">With the SDK (@agentry/sdk)</p>
      <pre className="mono command" data-testid="first-sign-sdk">
        {sdk}
      </pre>
      <p className="label">With the CLI, which keeps it {polls ? 'polling' : 'sending heartbeats'} while it runs the agent</p>
      <pre className="mono command" data-testid="first-sign-cli">
        {cli}
      </pre>
      <p className="label">Over HTTP</p>
      <pre className="mono command" data-testid="first-sign-http">
        {http}
      </pre>
    </section>
  );
}
