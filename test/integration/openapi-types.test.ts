import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startTestApp } from '../helpers/app.ts';

test("the SDK's committed OpenAPI types match the service's routes (npm run gen:api rewrites them)", async () => {
  const script = fileURLToPath(new URL('../../packages/sdk/scripts/generate-openapi-types.ts', import.meta.url));
  const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, '--check'], { timeout: 120_000 }).catch(
    (error: { stderr: string; code: number }) => error,
  );
  assert.ok(!('code' in result) || result.code === 0, `stale: ${'stderr' in result ? result.stderr : ''}`);
});

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: { type?: string | string[]; enum?: unknown[]; anyOf?: { const?: unknown; enum?: unknown[] }[]; minimum?: number; format?: string };
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

/** A value the parameter's schema takes, written as TypeScript. */
function sampleOf(parameter: Parameter): string {
  const schema = parameter.schema ?? {};
  const choice = schema.enum?.[0] ?? schema.anyOf?.[0]?.const ?? schema.anyOf?.[0]?.enum?.[0];
  if (choice !== undefined) return JSON.stringify(choice);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' || type === 'number') return String(schema.minimum ?? 1);
  if (type === 'boolean') return 'true';
  return schema.format === 'date-time' ? JSON.stringify(new Date(0).toISOString()) : '"x"';
}

test('a client generated from /openapi.json with openapi-typescript compiles, calling every list route with only its required parameters', async () => {
  const app = await startTestApp();
  let document: OpenApi;
  try {
    const response = await app.request({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = response.json() as OpenApi;
  } finally {
    await app.close();
  }

  const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
  const ids = operations.map(({ operation }) => operation.operationId);
  assert.deepEqual(
    operations.filter(({ operation }) => !operation.operationId).map(({ method, path }) => `${method} ${path}`),
    [],
    'every operation has an operationId',
  );
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  for (const { path, method, operation } of operations) {
    const success = Object.entries(operation.responses).filter(([status]) => /^2/.test(status) && status !== '204');
    assert.ok(success.length === 0 || success.some(([, answer]) => answer.content), `${method.toUpperCase()} ${path} declares what its 2xx answer holds`);
  }

  const lists = operations.filter(({ path, method }) => method === 'get' && !path.includes('{'));
  assert.ok(lists.length > 20, `${lists.length} list routes`);
  const calls = lists.map(({ path, operation }) => {
    const required = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query' && parameter.required);
    const query = required.map((parameter) => `${JSON.stringify(parameter.name)}: ${sampleOf(parameter)}`).join(', ');
    return `  await client.GET(${JSON.stringify(path)}${query ? `, { params: { query: { ${query} } } }` : ''});`;
  });

  // Both files sit in the repository, in memory only, so `openapi-fetch` resolves from its node_modules.
  const root = join(dirname(fileURLToPath(import.meta.url)), 'generated-client');
  const files = new Map([
    [join(root, 'api.d.ts'), astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]))],
    [
      join(root, 'main.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './api.js';",
        "const client = createClient<paths>({ baseUrl: 'https://agentry.example.test' });",
        'export async function callEveryList(): Promise<void> {',
        ...calls,
        '}',
      ].join('\n'),
    ],
  ]);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  host.directoryExists = (name) => name === root || (directoryExists?.call(host, name) ?? true);
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    return text !== undefined ? ts.createSourceFile(name, text, language) : getSourceFile.call(host, name, language, ...rest);
  };
  const program = ts.createProgram([join(root, 'main.ts')], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    .slice(0, 10);
  assert.deepEqual(problems, [], files.get(join(root, 'main.ts')));
});
