/**
 * Loaded before every test file (`npm test` passes `--import`). When `assert.ok(value)` fails
 * without a message, Node writes one by reading the test's source around the call and parsing it
 * with acorn, token by token. On our TypeScript files that parse does not finish: the failing check
 * never reports, its file never ends and the whole suite waits. This `ok` fails at once and says
 * what value it got; with a message it behaves as Node's.
 */
import assert, { AssertionError } from 'node:assert';
import { inspect } from 'node:util';

function ok(value: unknown, message?: string | Error): asserts value {
  if (value) return;
  if (message instanceof Error) throw message;
  throw new AssertionError({
    message: message ?? `expected a truthy value, got ${inspect(value)}`,
    actual: value,
    expected: true,
    operator: '==',
    stackStartFn: ok,
  });
}

assert.ok = ok;
assert.strict.ok = ok;
