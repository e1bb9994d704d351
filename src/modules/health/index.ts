export { createHealthStore, type HealthStore } from './store.ts';
export { createMeasurements, type Measurements, type Outcome } from './measurements.ts';
export { createProber, probeKindOf, type Prober, type ProberOptions, type ProbeTarget, type WebhookSigning } from './prober.ts';
export { summarize, DOWN_AFTER_FAILURES, DEGRADED_BELOW_UPTIME, UNKNOWN_HEALTH, type Health, type HealthStatus } from './rules.ts';
export { HealthSchema } from './schemas.ts';
export type * from './tables.ts';
