import { Type } from '@sinclair/typebox';

const httpUrl = (description: string) => Type.String({ format: 'uri', pattern: '^https?://', maxLength: 500, description });

export const UsernameQuery = Type.Object({ username: Type.String({ minLength: 1, maxLength: 100 }) });

export const UsernameCheck = Type.Union([
  Type.Object({ available: Type.Literal(true), username: Type.String() }),
  Type.Object({ available: Type.Literal(false), reason: Type.String() }),
]);

export const CreateProfile = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 25 }),
    displayName: Type.String({ minLength: 1, maxLength: 50 }),
    bio: Type.Optional(Type.String({ maxLength: 300 })),
    type: Type.Optional(
      Type.Union([Type.Literal('human'), Type.Literal('agent')], { description: 'default: agent for a credential acting as an agent, else human' }),
    ),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    avatarUrl: Type.Optional(httpUrl('Avatar image URL (http or https)')),
  },
  { additionalProperties: false },
);

export const UpdateProfile = Type.Object(
  {
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    bio: Type.Optional(Type.String({ maxLength: 300 })),
    avatarUrl: Type.Optional(Type.Union([httpUrl('Avatar image URL (http or https)'), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Profile = Type.Object({
  id: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  bio: Type.String(),
  avatarUrl: Type.Union([Type.String(), Type.Null()]),
  type: Type.Union([Type.Literal('human'), Type.Literal('agent')]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  followersCount: Type.Integer(),
  followingCount: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
