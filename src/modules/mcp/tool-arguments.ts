import { MAX_JSON_DEPTH } from '../../lib/json-depth.ts';

/**
 * Every JSON body follows the same input rules (docs/security.md): it nests at most MAX_JSON_DEPTH
 * levels and carries no `__proto__` key, nor a `constructor` object with a `prototype` key. Elsewhere
 * a body that breaks them is an HTTP 400; an MCP client, though, shows a model only what a tool
 * answers, so a tool call whose *arguments* break them is answered as a tool error the model can
 * read and correct. The call is taken out of the body before anything else sees it.
 */

export type RequestId = string | number;

const ARGUMENTS_TOO_DEEP = `BAD_REQUEST: The arguments nest too deeply: a request, its tool arguments included, nests at most ${MAX_JSON_DEPTH} levels`;
const ARGUMENTS_WITH_PROTOTYPE_KEY =
  'BAD_REQUEST: The arguments contain a "__proto__" key, or a "constructor" object with a "prototype" key, which no request may carry';

/** The rule a parsed value breaks, walked without recursion (it may nest thousands of levels); `level` is the value's own. */
function brokenRule(value: unknown, level: number): 'depth' | 'prototype' | null {
  const pending: [unknown, number][] = [[value, level]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return 'depth';
    if (Object.hasOwn(node, '__proto__')) return 'prototype';
    const constructor = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : null;
    if (constructor !== null && typeof constructor === 'object' && Object.hasOwn(constructor, 'prototype')) return 'prototype';
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return null;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A JSON-RPC body (one message or a batch) whose tool calls' arguments break the input rules, with
 * those arguments emptied and the answer each such call gets by its id; null when no tool call does
 * (or the text is not JSON), and then the body is read exactly as every other route reads one.
 */
export function screenToolCalls(text: string): { body: unknown; refused: Map<RequestId, string> } | null {
  let body: unknown;
  try {
    // V8's JSON.parse does not recurse, so any depth parses; nothing walks the result recursively.
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const refused = new Map<RequestId, string>();
  const messageLevel = Array.isArray(body) ? 2 : 1;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params) || !('arguments' in message.params)) continue;
    if (typeof message.id !== 'string' && typeof message.id !== 'number') continue;
    // The message is one level, its params the next, the arguments the one after.
    const broken = brokenRule(message.params.arguments, messageLevel + 2);
    if (!broken) continue;
    refused.set(message.id, broken === 'depth' ? ARGUMENTS_TOO_DEEP : ARGUMENTS_WITH_PROTOTYPE_KEY);
    message.params = { ...message.params, arguments: {} };
  }
  // What is left must follow the rules too; if it does not, the usual 400 says why.
  if (refused.size === 0 || brokenRule(body, 1)) return null;
  return { body, refused };
}
