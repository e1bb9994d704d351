#!/usr/bin/env node
// The CLI is TypeScript run through tsx's loader, so the repository needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
await main();
