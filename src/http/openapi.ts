/**
 * The finishing touches of the OpenAPI document (`/openapi.json`) for clients generated from it
 * (openapi-typescript, openapi-generator): every operation gets an `operationId`, and a query
 * parameter with a default is optional, since the service fills it in. Applied to the whole
 * document, so routes added later get the same.
 */

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface Parameter {
  in: string;
  required?: boolean;
  schema?: { default?: unknown };
}

type Operation = Record<string, unknown> & { operationId?: string; parameters?: Parameter[] };

const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * The operation's id, from its method and path: `GET /v1/agents/{id}/tasks` is `getV1AgentsByIdTasks`,
 * `GET /.tlog/receipts/tile/{*}` is `getTlogReceiptsTileByPath`.
 */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const parameter = /^\{(.*)\}$/.exec(segment)?.[1];
      if (parameter === undefined) return segment.split(/[^A-Za-z0-9]+/);
      const name = parameter.split(/[^A-Za-z0-9]+/).filter(Boolean);
      return ['by', ...(name.length > 0 ? name : ['path'])];
    })
    .filter(Boolean);
  return method.toLowerCase() + words.map(capitalized).join('');
}

export function forGeneratedClients<T extends object>(document: T): T {
  const { paths } = document as { paths?: Record<string, Record<string, unknown>> };
  const taken = new Map<string, string>();
  for (const [path, item] of Object.entries(paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const operation = value as Operation;
      const operationId = operation.operationId ?? operationIdOf(method, path);
      const holder = taken.get(operationId);
      // Two paths that differ only in punctuation would share an id: a route must then declare its own.
      if (holder)
        throw new Error(`OpenAPI operationId ${operationId} of ${method.toUpperCase()} ${path} is also ${holder}'s: give one route schema.operationId`);
      taken.set(operationId, `${method.toUpperCase()} ${path}`);
      // A copy: one operation object may stand for several methods of a route.
      item[method] = {
        ...operation,
        operationId,
        ...(operation.parameters
          ? { parameters: operation.parameters.map((p) => (p.in === 'query' && p.schema?.default !== undefined ? { ...p, required: false } : p)) }
          : {}),
      };
    }
  }
  return document;
}
