import type { Redis } from 'ioredis';

export interface WindowHit {
  /** hits in the current window, this one included */
  count: number;
  /** when the current window ends, epoch ms */
  resetAt: number;
}

/**
 * Fixed-window hit counters. In-process by default; in Redis when it is configured so
 * that every replica counts against the same windows.
 */
export interface WindowCounter {
  hit(key: string, windowMs: number): Promise<WindowHit>;
  close(): Promise<void>;
}

export function memoryWindowCounter(now: () => number = Date.now): WindowCounter {
  const windows = new Map<string, WindowHit>();
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
      return { ...window };
    },
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

export function redisWindowCounter(redis: Redis, prefix: string, now: () => number = Date.now): WindowCounter {
  return {
    async hit(key, windowMs) {
      const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, `${prefix}rl:${key}`, windowMs)) as [number, number];
      return { count, resetAt: now() + (ttl > 0 ? ttl : windowMs) };
    },
    async close() {},
  };
}
