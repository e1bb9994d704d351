import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

test("the SDK's committed OpenAPI types match the service's routes (npm run gen:api rewrites them)", async () => {
  const script = fileURLToPath(new URL('../../packages/sdk/scripts/generate-openapi-types.ts', import.meta.url));
  const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, '--check'], { timeout: 120_000 }).catch(
    (error: { stderr: string; code: number }) => error,
  );
  assert.ok(!('code' in result) || result.code === 0, `stale: ${'stderr' in result ? result.stderr : ''}`);
});
