import type { onRequestAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { clientNetworkOf } from '../infra/http/address-policy.js';
import { tooManyRequests } from './errors.js';

export interface WindowHit {
  /** hits in the current window, this one included */
  count: number;
  /** how long until the current window ends, in ms (a length, so that no caller mixes clocks) */
  resetInMs: number;
}

/**
 * Fixed-window hit counters. In-process by default; in Redis when it is configured so
 * that every replica counts against the same windows.
 */
export interface WindowCounter {
  hit(key: string, windowMs: number): Promise<WindowHit>;
  /** Gives back one hit of the current window (a try that turned out not to count). */
  release(key: string): Promise<void>;
  /** 'per-process' while counts that should be shared cannot be (Redis away). */
  readonly sharing: 'shared' | 'per-process';
  close(): Promise<void>;
}

export function memoryWindowCounter(now: () => number = Date.now): WindowCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let lastSweep = now();
  return {
    async hit(key, windowMs) {
      const at = now();
      if (at - lastSweep > 60_000) {
        for (const [k, window] of windows) if (window.resetAt <= at) windows.delete(k);
        lastSweep = at;
      }
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetInMs: window.resetAt - at };
    },
    async release(key) {
      const window = windows.get(key);
      if (window && window.count > 0 && window.resetAt > now()) window.count -= 1;
    },
    sharing: 'per-process',
    async close() {
      windows.clear();
    },
  };
}

// INCR and the first PEXPIRE in one round trip, atomically.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }`;

// DECR only a window that still exists and has hits: never resurrect an expired key.
const RELEASE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/** After a Redis command fails, how long hits are counted here before one tries Redis again. */
const REDIS_RETRY_MS = 5_000;

/**
 * Counts in Redis so that replicas share the windows. While Redis cannot be reached (the
 * connection is down, and ioredis reconnects by itself, or a command failed: an error, or no
 * answer within the command timeout), each hit is counted in this process instead, so the
 * service keeps serving with limits per replica; one warning when that starts and a note when
 * Redis is back. After a failed command only one hit every few seconds tries Redis again, and
 * the first that succeeds shares the windows again: a Redis that hangs with its connection open
 * costs one command timeout now and then, not one on every check.
 */
export function redisWindowCounter(
  redis: Redis,
  prefix: string,
  log: { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void },
  now: () => number = Date.now,
  retryMs = REDIS_RETRY_MS,
): WindowCounter {
  const fallback = memoryWindowCounter(now);
  let away = false;
  let closed = false;
  // Real time, not the app's clock: it paces tries of a real connection.
  let retryAt = 0;
  let retrying = false;
  const fellBack = (err?: unknown) => {
    if (closed) return;
    if (!away) log.warn({ err }, 'Redis is unreachable: rate limits are counted per process until it is back');
    away = true;
    retryAt = Date.now() + retryMs;
  };
  const cameBack = () => {
    if (away) log.info({}, 'Redis is back: rate limits are shared again');
    away = false;
  };
  redis.on('ready', cameBack);
  redis.on('end', () => fellBack());
  redis.on('reconnecting', () => fellBack());
  // Connection errors are retried by ioredis; an unhandled 'error' event would end the process.
  redis.on('error', (err: unknown) => fellBack(err));

  /** Runs `command` on Redis if it may be tried now; undefined when it is not, or fails. */
  async function onRedis<T>(command: () => Promise<T>): Promise<T | undefined> {
    if (redis.status !== 'ready') {
      fellBack();
      return undefined;
    }
    const retry = away;
    if (retry && (retrying || Date.now() < retryAt)) return undefined;
    retrying ||= retry;
    try {
      const result = await command();
      cameBack();
      return result;
    } catch (err) {
      fellBack(err);
      return undefined;
    } finally {
      if (retry) retrying = false;
    }
  }

  return {
    async hit(key, windowMs) {
      const answer = await onRedis(() => redis.eval(HIT_SCRIPT, 1, `${prefix}rl:${key}`, windowMs) as Promise<[number, number]>);
      if (!answer) return fallback.hit(key, windowMs);
      const [count, ttl] = answer;
      return { count, resetInMs: ttl > 0 ? ttl : windowMs };
    },
    async release(key) {
      const released = await onRedis(() => redis.eval(RELEASE_SCRIPT, 1, `${prefix}rl:${key}`));
      if (released === undefined) await fallback.release(key);
    },
    get sharing() {
      return away || redis.status !== 'ready' ? 'per-process' : 'shared';
    },
    async close() {
      closed = true;
      await fallback.close();
    },
  };
}

/** A window a try takes a place in: past `limit` places in `windowMs`, 429 with `message`. */
export interface LimitedWindow {
  key: string;
  limit: number;
  windowMs: number;
  message: string;
}

/**
 * Takes a place in the window, or refuses with 429 and the seconds until it resets. `filled` runs
 * once per window: for the try that first finds it full.
 */
export async function takePlace(counter: WindowCounter, window: LimitedWindow, filled?: () => Promise<void>): Promise<void> {
  const { count, resetInMs } = await counter.hit(window.key, window.windowMs);
  if (count <= window.limit) return;
  if (count === window.limit + 1) await filled?.();
  throw tooManyRequests(resetInMs / 1000, window.message);
}

/**
 * onRequest hook for routes open to anyone (no API key to count against): a fixed window per
 * client IP, so unknown tokens or sessions cannot be tried, or looked up at Stripe, in bulk.
 */
export function limitByClientIp(counter: WindowCounter, scope: string, perMinute: number, message: string): onRequestAsyncHookHandler {
  return async (request) => {
    const { count, resetInMs } = await counter.hit(`${scope}:${clientNetworkOf(request.ip)}`, 60_000);
    if (count > perMinute) throw tooManyRequests(resetInMs / 1000, message);
  };
}
