import path from 'node:path';
import { describe, it } from 'node:test';
import { RuleTester } from 'eslint';
import { moduleBoundaries } from '../../scripts/eslint/module-boundaries.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const src = path.resolve(import.meta.dirname, '../../src');
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module' } });

tester.run('module-boundaries', moduleBoundaries, {
  valid: [
    { filename: `${src}/modules/tasks/service.ts`, code: "import { x } from '../registry/index.ts';" },
    { filename: `${src}/modules/tasks/service.ts`, code: "import { x } from './store.ts';" },
    { filename: `${src}/modules/extraction/model.ts`, code: "import { x } from './words.ts';" },
    { filename: `${src}/modules/tasks/assignment.ts`, code: "import { x } from '../extraction/index.ts';" },
    { filename: `${src}/modules/tasks/service.ts`, code: "import { x } from '../../lib/errors.ts';" },
    { filename: `${src}/app.ts`, code: "import { x } from './modules/auth/index.ts';" },
    { filename: `${src}/db/migrations/index.ts`, code: "import { x } from './0001_identity.ts';" },
    { filename: `${src}/db/migrations/0002_registry.ts`, code: "import { up } from '../migration.ts';" },
    { filename: `${src}/db/database.ts`, code: "import { Database } from './schema.ts';" },
    { filename: `${src}/modules/tasks/store.ts`, code: "import { ownTables } from '../../db/tables.ts';" },
  ],
  invalid: [
    { filename: `${src}/modules/tasks/service.ts`, code: "import { x } from '../registry/store.ts';", errors: 1 },
    { filename: `${src}/modules/extraction/model.ts`, code: "import { x } from '../registry/schemas.ts';", errors: 1 },
    { filename: `${src}/modules/tasks/assignment.ts`, code: "import { x } from '../extraction/rules.ts';", errors: 1 },
    { filename: `${src}/app.ts`, code: "import { x } from './modules/auth/oidc.ts';", errors: 1 },
    { filename: `${src}/app.ts`, code: "export { x } from './modules/auth/oidc.ts';", errors: 1 },
    { filename: `${src}/http/auth.ts`, code: "const m = import('../modules/auth/store.ts');", errors: 1 },
    { filename: `${src}/db/migrations/0008_key_proof.ts`, code: "import { t } from './0006_discovery.ts';", errors: 1 },
    { filename: `${src}/modules/social/feed-store.ts`, code: "import { Database } from '../../db/schema.ts';", errors: 1 },
  ],
});
