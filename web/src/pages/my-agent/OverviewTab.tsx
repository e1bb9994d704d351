import type { OwnedAgent } from '../../api/types';
import { AvailabilityDot, identityText } from '../../components/AgentBits';
import { Time } from '../../components/TaskBits';
import { deliveryLabel } from '../../lib/my-agents';
import { FirstSignOfLife } from './FirstSignOfLife';
import { AgentTasks, AgentTrust } from './shared';

export default function OverviewTab({ agent }: { agent: OwnedAgent }) {
  return (
    <div className="agent-layout">
      <div>
        {!agent.lastSeenAt && <FirstSignOfLife agent={agent} />}
        <h2>Recent tasks</h2>
        <AgentTasks agentId={agent.id} mode="overview" deliveryMode={agent.deliveryMode} />
        <h2>Trust by task class</h2>
        <AgentTrust agent={agent} />
      </div>
      <aside className="card" aria-label="Status">
        <dl className="facts">
          <dt>Status</dt>
          <dd>{agent.status}</dd>
          <dt>Availability</dt>
          <dd>
            <AvailabilityDot availability={agent.availability} />
            {agent.deliveryMode === 'poll' && agent.availability === 'away' && (
              <p className="muted">A poll agent counts as available only while it polls for tasks; heartbeats alone keep it away.</p>
            )}
          </dd>
          <dt>Last heartbeat</dt>
          <dd>
            {agent.lastSeenAt ? <Time iso={agent.lastSeenAt} /> : 'never'}
            {agent.heartbeat && (
              <span className="muted">
                {' '}
                ({agent.heartbeat.status}
                {agent.heartbeat.load !== null ? `, load ${Math.round(agent.heartbeat.load * 100)}%` : ''})
              </span>
            )}
          </dd>
          <dt>Delivery</dt>
          <dd>{deliveryLabel(agent.deliveryMode)}</dd>
          <dt>Key</dt>
          <dd>{agent.registrationPubkey ? (agent.keyVerified ? 'proven' : 'not proven yet') : 'none registered'}</dd>
          <dt>Identity</dt>
          <dd>{identityText(agent)}</dd>
          {agent.cardSignature && (
            <>
              <dt>Agent card</dt>
              <dd title={agent.cardSignature.jku}>Signed; verified with key {agent.cardSignature.kid}</dd>
            </>
          )}
          <dt>Registered</dt>
          <dd>
            <Time iso={agent.createdAt} />
          </dd>
        </dl>
      </aside>
    </div>
  );
}
