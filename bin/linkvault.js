#!/usr/bin/env node
// Runs the build (dist/, `npm run build`) when there is one, else src/ through tsx, so a checkout works without a build; LINKVAULT_FROM_SOURCE=1 always runs src/ (the tests set it).
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const compiled = new URL('../dist/main.js', import.meta.url);

if (process.env.LINKVAULT_FROM_SOURCE !== '1' && existsSync(compiled)) {
  process.setSourceMapsEnabled(true);
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
