#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx: no build step between a checkout and a run.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
