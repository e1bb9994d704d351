import { randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => uuidPattern.test(value);
