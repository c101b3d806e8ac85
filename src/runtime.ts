import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { memoryWindowCounter, redisWindowCounter, type WindowCounter } from './core/rate-limit.js';
import { openDatabase, type DatabaseHandle } from './db/kysely.js';
import type { Clock } from './db/executor.js';
import { loadMasterKey } from './infra/crypto/master-key.js';
import { createAccountsService } from './modules/accounts/accounts.service.js';
import { createApiKeysService } from './modules/api-keys/api-keys.service.js';

/**
 * Everything the app runs on, built once from the configuration: connections first,
 * then the services over them. buildApp() takes this; the CLI uses the services directly.
 */
export async function createRuntime(config: Config, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? Date.now;
  const database: DatabaseHandle = openDatabase(config.database);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }) : null;
  try {
    await database.migrate();
    if (redis) await redis.connect();
  } catch (error) {
    await database.close();
    redis?.disconnect();
    throw error;
  }
  const masterKey = loadMasterKey(config.masterKey, config.dataDir);
  const counter: WindowCounter = redis ? redisWindowCounter(redis, config.redisPrefix) : memoryWindowCounter(clock);

  const db = database.db;
  const apiKeys = createApiKeysService({ db, clock });
  const accounts = createAccountsService({ db, clock, apiKeys });

  return {
    config,
    clock,
    database,
    masterKey,
    counter,
    services: { apiKeys, accounts },
    async close() {
      await counter.close();
      redis?.disconnect();
      await database.close();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof createRuntime>>;
