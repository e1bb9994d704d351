import { Type } from '@sinclair/typebox';
import { Pagination } from '../../http/schemas.ts';

export const Credentials = Type.Object(
  {
    email: Type.String({ format: 'email', minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 8, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const Account = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('person'), Type.Literal('agent')]),
  email: Type.Union([Type.String(), Type.Null()]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  waitingForApproval: Type.Boolean({ description: 'true while the account waits for a moderator to approve it (sign-up approval)' }),
});

export const SessionGrant = Type.Object({
  data: Type.Object({ token: Type.String(), expiresAt: Type.String(), account: Account }),
});

export const CreateApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

const apiKeyFields = {
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  agentId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  lastUsedAt: Type.Union([Type.String(), Type.Null()]),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
};

export const ApiKey = Type.Object(apiKeyFields);
export const NewApiKey = Type.Object({ ...apiKeyFields, key: Type.String({ description: 'The secret; shown only in this response' }) });
export const ApiKeyList = Type.Object({ data: Type.Array(ApiKey), pagination: Pagination });

export const BrowserSessionGrant = Type.Object({
  data: Type.Object({
    expiresAt: Type.String(),
    account: Account,
    csrfToken: Type.String({ description: 'Send as X-CSRF-Token on every request that changes something' }),
  }),
});

export const ChangePassword = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 200 }),
    newPassword: Type.String({ minLength: 8, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const PasswordChanged = Type.Object({
  data: Type.Object({
    changed: Type.Literal(true),
    otherSessionsEnded: Type.Integer({ description: 'How many other sessions of the account were ended' }),
  }),
});

export const DeleteAccount = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Your password (accounts that have one)' })),
    confirm: Type.Optional(
      Type.String({ maxLength: 100, description: 'For an account that signs in through an identity provider: the words "delete my account"' }),
    ),
  },
  { additionalProperties: false },
);
