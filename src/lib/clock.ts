/** Time comes from here so tests can move it (challenge expiry, availability, sessions). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const isoNow = (clock: Clock): string => clock.now().toISOString();
export const isoIn = (clock: Clock, ms: number): string => new Date(clock.now().getTime() + ms).toISOString();
