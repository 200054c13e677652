// Discord's REST rate limits in Redis, shared by every process with the bot's token. Each answer
// tells its bucket (X-RateLimit-Bucket), what is left in it and when it refills; a request first
// takes one from its route's bucket, and waits for the refill when none is left. A 429 (which
// should now be rare) empties the bucket, or sets the global limit, until its Retry-After.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { SharedRateLimits } from '../model/rate-limits.ts';

/** Longest single wait: a refill further off is waited for in steps (the state may change). */
const MAX_STEP_MS = 5000;
/** Route → bucket mappings and bucket states outlive any window Discord uses. */
const STATE_TTL_MS = 3_600_000;

// A bucket's state: `used` in the window that ends at `reset`, its `limit` and `window` (ms) as the
// platform last told them. Requests are counted here as they are admitted, so those still in
// flight count too (an answer's X-RateLimit-Remaining cannot know them).

// KEYS: global, route. ARGV: now (ms). Returns ms to wait, 0 when the request may go.
const ACQUIRE = `
local now = tonumber(ARGV[1])
local g = tonumber(redis.call('GET', KEYS[1]) or '0')
if g > now then return g - now end
local bucket = redis.call('GET', KEYS[2])
if not bucket then
  -- Nothing known yet: one request at a time, across replicas, until an answer tells the bucket.
  if redis.call('SET', KEYS[2] .. ':probe', '1', 'NX', 'PX', 2000) then return 0 end
  return 25
end
local key = KEYS[2] .. ':' .. bucket
local limit = tonumber(redis.call('HGET', key, 'limit') or '0')
if limit <= 0 then return 0 end
local reset = tonumber(redis.call('HGET', key, 'reset') or '0')
if reset <= now then
  local window = tonumber(redis.call('HGET', key, 'window') or '0')
  redis.call('HSET', key, 'used', 1, 'reset', now + window)
  return 0
end
local used = tonumber(redis.call('HGET', key, 'used') or '0')
if used < limit then
  redis.call('HINCRBY', key, 'used', 1)
  return 0
end
return reset - now
`;

// KEYS: bucket state. ARGV: used (as the answer says), reset (ms), now, ttl, limit, window (ms).
const OBSERVE = `
local now = tonumber(ARGV[3])
local used = tonumber(ARGV[1])
local reset = tonumber(ARGV[2])
local r = tonumber(redis.call('HGET', KEYS[1], 'reset') or '0')
if r > now then
  used = math.max(used, tonumber(redis.call('HGET', KEYS[1], 'used') or '0'))
  reset = math.max(reset, r)
end
local w = math.max(tonumber(redis.call('HGET', KEYS[1], 'window') or '0'), tonumber(ARGV[6]))
redis.call('HSET', KEYS[1], 'used', used, 'reset', reset, 'limit', ARGV[5], 'window', w)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return used
`;

export class RedisRateLimits implements SharedRateLimits {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  private routeKey(route: string): string {
    // Webhook routes hold interaction tokens: keys name a digest, never the route itself.
    return `${this.prefix}:route:${createHash('sha256').update(route).digest('hex').slice(0, 32)}`;
  }

  async acquire(route: string): Promise<void> {
    for (;;) {
      const wait = Number(
        await this.redis.eval(
          ACQUIRE,
          2,
          `${this.prefix}:global`,
          this.routeKey(route),
          Date.now(),
        ),
      );
      if (wait <= 0) return;
      await sleep(Math.min(wait, MAX_STEP_MS));
    }
  }

  async observe(
    route: string,
    status: number,
    header: (name: string) => string | null,
  ): Promise<void> {
    const now = Date.now();
    const retryAfter = Number(header('retry-after'));
    if (status === 429 && header('x-ratelimit-global') === 'true' && retryAfter > 0) {
      await this.redis.set(
        `${this.prefix}:global`,
        String(now + retryAfter * 1000),
        'PX',
        retryAfter * 1000 + 1000,
      );
      return;
    }
    const bucket = header('x-ratelimit-bucket');
    // A route without a bucket (Discord has a few) is not limited per route: let the next go.
    if (!bucket) {
      await this.redis.del(`${this.routeKey(route)}:probe`);
      return;
    }
    const resetAfter = Number(header('x-ratelimit-reset-after'));
    const limit = Number(header('x-ratelimit-limit'));
    const left = status === 429 ? 0 : Number(header('x-ratelimit-remaining'));
    if (!Number.isFinite(resetAfter) || !Number.isFinite(left) || !(limit > 0)) return;
    const routeKey = this.routeKey(route);
    const key = `${routeKey}:${bucket}`;
    const waitMs = Math.max(resetAfter, status === 429 && retryAfter > 0 ? retryAfter : 0) * 1000;
    await this.redis
      .multi()
      .set(routeKey, bucket, 'PX', STATE_TTL_MS)
      .del(`${routeKey}:probe`)
      .eval(
        OBSERVE,
        1,
        key,
        limit - left,
        now + waitMs,
        now,
        STATE_TTL_MS,
        limit,
        resetAfter * 1000,
      )
      .exec();
  }
}
