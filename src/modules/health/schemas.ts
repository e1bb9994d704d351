import { Type } from '@sinclair/typebox';

const nullable = <T extends ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()]);

/** An agent's health as the registry measures it (docs/registry.md, "Health"). */
export const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('up'), Type.Literal('degraded'), Type.Literal('down'), Type.Literal('unknown')]),
    uptime24h: nullable(Type.Number({ description: 'share of successful checks (probes and deliveries) over the last 24 hours; null without any' })),
    uptime7d: nullable(Type.Number({ description: 'the same over the last 7 days' })),
    p50Ms: nullable(Type.Number({ description: "median over the last 24 hours' hours of their mean successful response time, in milliseconds" })),
    lastCheckedAt: Type.Union([Type.String(), Type.Null()]),
    lastFailure: Type.Union([Type.Object({ at: Type.String(), reason: Type.String() }), Type.Null()]),
    hours: Type.Array(Type.Union([Type.Number(), Type.Null()]), {
      description: 'the last 24 hours, oldest first: each one’s share of successful checks, null without checks',
    }),
  },
  {
    description:
      'measured by the registry from its probes and from real deliveries: down after 3 failed checks in a row; degraded after 1 or 2, below 90% uptime over 24 h, or slower than HEALTH_SLOW_MS; unknown without a check in 24 h',
  },
);
