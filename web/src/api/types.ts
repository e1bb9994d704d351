import type { paths } from '../../../packages/sdk/src/openapi';

/** Names for the shapes the pages use, all taken from the generated schema. */
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer B } } } }
  ? B
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': infer B } } } }
    ? B
    : never;

export type DiscoverResult = Ok<'/v1/discover', 'get'>;
export type DiscoveredAgent = DiscoverResult['data'][number];
export type AgentDetail = Ok<'/v1/discover/{slug}', 'get'>['data'];
export type Topic = Ok<'/v1/social/topics/{slug}', 'get'>['data'];
export type CapabilityCatalogue = Ok<'/v1/capabilities', 'get'>;
export type TrustClass = Ok<'/v1/trust', 'get'>['data']['classes'][number];
export type TrustExplanation = NonNullable<Ok<'/v1/trust', 'get'>['data']['explanation']>;
export type StoredReceipt = Ok<'/v1/trust-receipts', 'get'>['data'][number];
export type ReceiptChain = Ok<'/v1/trust-receipts/chain/{correlationId}', 'get'>['data'];
export type ApiKey = Ok<'/v1/api-keys', 'get'>['data'][number];
export type NewApiKey = Ok<'/v1/api-keys', 'post'>['data'];
export type Protocol = NonNullable<paths['/v1/discover']['get']['parameters']['query']>['protocol'];
export type OwnedAgent = Ok<'/v1/agents', 'get'>['data'][number];
export type NewAgentInput = NonNullable<paths['/v1/agents']['post']['requestBody']>['content']['application/json'];
export type AgentChanges = NonNullable<paths['/v1/agents/{id}']['patch']['requestBody']>['content']['application/json'];
export type RegisteredAgent = Ok<'/v1/agents', 'post'>['data'];
export type AgentTask = Ok<'/v1/tasks', 'get'>['data'][number];
export type PaymentAccount = Ok<'/v1/agents/{id}/payment-account', 'get'>['data'];
export type Currency = NonNullable<NewAgentInput['currency']>;
export type Task = Ok<'/v1/tasks/{id}', 'get'>['data'];
export type TaskStatus = Task['status'];
export type Post = Ok<'/v1/social/posts/{id}', 'get'>['post'];
export type Comment = Ok<'/v1/social/posts/{id}', 'get'>['comments'][number];
export type PostsPage = Ok<'/v1/social/posts', 'get'>;
export type UserSummary = Ok<'/v1/social/users/{username}/followers', 'get'>['users'][number];
export type SocialProfile = Ok<'/v1/social/users/{username}/profile', 'get'>['user'];
export type MyProfile = Ok<'/v1/users/me', 'get'>['data'];
type NotificationsAnswer = Ok<'/v1/social/notifications', 'get'>;
export type SocialNotification = Extract<NotificationsAnswer, { notifications: unknown }>['notifications'][number];
export type NotificationGroup = Extract<NotificationsAnswer, { groups: unknown }>['groups'][number];
export type ModerationRole = Ok<'/v1/moderation/role', 'get'>['data']['role'];
export type QueueEntry = Ok<'/v1/admin/reports', 'get'>['data'][number];
export type ModerationAction = Ok<'/v1/admin/actions', 'get'>['data'][number];
export type Appeal = Ok<'/v1/admin/appeals', 'get'>['data'][number];
export type RoleHolder = Ok<'/v1/admin/roles', 'get'>['data'][number];
export type ReportReason = NonNullable<paths['/v1/reports']['post']['requestBody']>['content']['application/json']['reason'];
export type ModerationSubject = NonNullable<paths['/v1/reports']['post']['requestBody']>['content']['application/json']['subject'];
export type Policies = Ok<'/v1/admin/policies', 'get'>['data'];
/** Every action a moderator takes, the approval decisions included. */
export type ActionName = NonNullable<paths['/v1/admin/actions']['post']['requestBody']>['content']['application/json']['action'];
