import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config.js';

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

/** The one sentence loadConfig refuses `env` with. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${String(error)}`);
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
}

test('DATABASE_URL must name an SQLite file: an empty sqlite: or a folder is refused before anything is opened', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'linkvault-config-'));
  try {
    fs.chmodSync(folder, 0o755);
    assert.match(refusal({ DATABASE_URL: 'sqlite:' }), /^DATABASE_URL must name the database file after sqlite:/);
    assert.match(refusal({ DATABASE_URL: 'sqlite://' }), /^DATABASE_URL must name the database file after sqlite:/);
    assert.equal(
      refusal({ DATABASE_URL: `sqlite:${folder}` }),
      `DATABASE_URL names the folder ${folder}: name the database file in it, such as sqlite:${path.join(folder, 'linkvault.db')}`,
    );
    assert.equal(fs.statSync(folder).mode & 0o777, 0o755, 'the folder is left as it was');
    assert.deepEqual(loadConfig({ DATABASE_URL: `sqlite:${folder}/linkvault.db` }).database, {
      kind: 'sqlite',
      file: path.join(folder, 'linkvault.db'),
    });
  } finally {
    fs.rmSync(folder, { recursive: true });
  }
});
