import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

test('.env.example lists every variable the configuration reads, and loads as it is', () => {
  const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
  const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
  const source = fs.readFileSync(path.join(root, 'src', 'config.ts'), 'utf8');
  const read = new Set([...source.matchAll(/env(?:\.|, ')([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]));
  assert.ok(read.size >= 25, `found the variables config.ts reads (${read.size})`);
  assert.deepEqual(
    [...read].filter((name) => !listed.has(name)),
    [],
    'variables missing from .env.example',
  );

  const env = Object.fromEntries([...example.matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!]));
  const config = loadConfig(env);
  assert.equal(config.port, 3000);
  assert.equal(config.database.kind, 'sqlite');
  assert.equal(config.metricsToken, undefined);
});
