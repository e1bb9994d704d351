/**
 * The whole database as Kysely sees it: the union of the tables each module owns. Each module
 * declares its tables in its own `tables.ts`, and its store is typed with those alone, so a store
 * cannot name another module's table; what a module reads of another goes through that module's
 * index.ts (functions, or a read-only view type it exports).
 */
import type { AuthTables } from '../modules/auth/index.ts';
import type { DiscoveryTables } from '../modules/discovery/index.ts';
import type { HealthTables } from '../modules/health/index.ts';
import type { MediaTables } from '../modules/media/index.ts';
import type { ModerationTables } from '../modules/moderation/index.ts';
import type { OrgsTables } from '../modules/orgs/index.ts';
import type { PaymentsTables } from '../modules/payments/index.ts';
import type { ReceiptsTables } from '../modules/receipts/index.ts';
import type { RegistryTables } from '../modules/registry/index.ts';
import type { SocialTables } from '../modules/social/index.ts';
import type { TasksTables } from '../modules/tasks/index.ts';
import type { TlogTables } from '../modules/tlog/index.ts';
import type { UsersTables } from '../modules/users/index.ts';
import type { WitnessTables } from '../modules/witness/index.ts';

export type Database = AuthTables &
  UsersTables &
  OrgsTables &
  RegistryTables &
  ReceiptsTables &
  SocialTables &
  DiscoveryTables &
  TasksTables &
  PaymentsTables &
  MediaTables &
  TlogTables &
  ModerationTables &
  WitnessTables &
  HealthTables;
