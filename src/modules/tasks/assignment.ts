/**
 * Handing a task to one agent: its structured input (given, or extracted from the description for
 * this agent's inputSchema), a fresh task token, and for webhook agents the delivery job with the
 * exact payload to send. Used when a task is created and when it falls back to the next candidate.
 */
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import { newId } from '../../lib/ids.ts';
import type { AgentRecord, InputSchema } from '../registry/index.ts';
import type { FieldExtractor } from '../extraction/index.ts';
import { priceExclusion } from './routing.ts';
import type { DeliveryPayload } from './schemas.ts';
import type { NewDeliveryJob, Task } from './store.ts';

export type AssignableTask = Pick<
  Task,
  'id' | 'title' | 'description' | 'input' | 'inputExtracted' | 'capabilities' | 'priority' | 'expiresAt' | 'maxPriceCents' | 'currency'
>;

export type Assignment =
  | {
      ok: true;
      changes: Pick<Task, 'assignedAgentId' | 'status' | 'input' | 'inputExtracted' | 'tokenHash' | 'priceCents'>;
      delivery: NewDeliveryJob | null;
    }
  | { ok: false; error: { code: string; message: string; missing?: string[] }; agentId: string; found?: Record<string, unknown> };

export function deliveryPayload(
  task: Omit<AssignableTask, 'input' | 'inputExtracted'>,
  input: Record<string, unknown> | null,
  token: string,
  callbackUrl: string,
  now: string,
): DeliveryPayload {
  return {
    taskId: task.id,
    taskToken: token,
    title: task.title,
    description: task.description,
    input,
    callbackUrl,
    capabilities: task.capabilities,
    priority: task.priority,
    expiresAt: task.expiresAt,
    timestamp: now,
  };
}

export function createAssigner(deps: { extractor: FieldExtractor; publicUrl: string }) {
  const callbackUrlOf = (taskId: string) => `${deps.publicUrl}/v1/tasks/${taskId}/callback`;

  async function inputFor(task: AssignableTask, agent: AgentRecord): Promise<{ input: Record<string, unknown> | null; extracted: boolean; missing: string[] }> {
    // What the requester gave, not what an earlier candidate's extraction produced.
    if (task.input && !task.inputExtracted) return { input: task.input, extracted: false, missing: [] };
    const schema = agent.inputSchema();
    if (!schema) return { input: null, extracted: false, missing: [] };
    const result = await deps.extractor.extract(schema, { ...(task.title ? { title: task.title } : {}), description: task.description });
    return { input: result.input, extracted: true, missing: result.missing };
  }

  return {
    callbackUrlOf,

    /** The extraction a task submitted to an agent with this schema would get, for the preview route. */
    extract: (schema: InputSchema, text: { title?: string; description: string }) => deps.extractor.extract(schema, text),

    async assign(task: AssignableTask, agent: AgentRecord, now: string): Promise<Assignment> {
      // Routing checked the price; a fallback reads the agent again, and its price may have changed since.
      const priceProblem = priceExclusion(agent, { maxPriceCents: task.maxPriceCents, currency: task.currency });
      if (priceProblem) return { ok: false, agentId: agent.id, error: { code: 'price_changed', message: `${agent.name}: ${priceProblem.reason}` } };
      // The price is fixed here: what the agent charges when it completes, whatever it changes later.
      const priceCents = agent.pricePerTaskCents;
      const { input, extracted, missing } = await inputFor(task, agent);
      if (missing.length > 0) {
        return {
          ok: false,
          agentId: agent.id,
          error: {
            code: 'input_missing',
            message: `The description does not give the required field${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${agent.name}'s input`,
            missing,
          },
          found: input ?? {},
        };
      }
      if (agent.deliveryMode === 'poll') {
        // A polling agent gets its token when it takes the task.
        return {
          ok: true,
          changes: { assignedAgentId: agent.id, status: 'matched', input, inputExtracted: extracted, tokenHash: null, priceCents },
          delivery: null,
        };
      }
      const token = newSecret('tkt_');
      const payload = deliveryPayload(task, input, token, callbackUrlOf(task.id), now);
      return {
        ok: true,
        changes: { assignedAgentId: agent.id, status: 'matched', input, inputExtracted: extracted, tokenHash: hashSecret(token), priceCents },
        delivery: {
          id: newId(),
          taskId: task.id,
          agentId: agent.id,
          attempts: 0,
          payload,
          body: JSON.stringify(payload),
          remoteTaskId: null,
          runAt: now,
          leaseUntil: null,
        },
      };
    },
  };
}

export type Assigner = ReturnType<typeof createAssigner>;
