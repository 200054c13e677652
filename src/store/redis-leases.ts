// Leases on Redis: each step is one Lua script, so check and act are atomic. A lease is a hash
// (holder, generation) that expires; the generation counter is a key of its own that outlives it,
// so the next holder's token is always higher.
import type { LeaseBackend, WriteGuard, WriteOutcome } from './lease-backend.ts';
import { ONCE_HOLDER, ONCE_TTL_MS } from './lease-backend.ts';

/** A generation counter lives this long after its last acquisition (far past any stale run). */
const GEN_TTL_MS = 86_400_000;

const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local g = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'gen', g)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return g`;
const HOLDS = `redis.call('HGET', KEYS[1], 'holder') == ARGV[1] and redis.call('HGET', KEYS[1], 'gen') == ARGV[2]`;
const RENEW = `if ${HOLDS} then return redis.call('PEXPIRE', KEYS[1], ARGV[3]) else return 0 end`;
const RELEASE = `if ${HOLDS} then return redis.call('DEL', KEYS[1]) else return 0 end`;
// KEYS: lease, once marker (the lease again when none), then the kv keys; ARGV: token, has-once,
// marker TTL, then the values.
const WRITE_FENCED = `
if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[1] then return 'fenced' end
if ARGV[2] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 'repeated' end
for i = 3, #KEYS do redis.call('SET', KEYS[i], ARGV[i + 1]) end
if ARGV[2] == '1' then redis.call('SET', KEYS[2], '${ONCE_HOLDER}', 'PX', ARGV[3]) end
return 'written'`;

interface Evaluator {
  eval(script: string, o: { keys: string[]; arguments: string[] }): Promise<unknown>;
  hGet(key: string, field: string): Promise<unknown>;
  exists(key: string): Promise<unknown>;
}

export interface RedisLeaseDeps {
  client(): Promise<Evaluator>;
  /** The Redis key keyv stores `key` under. */
  kvKey(key: string): string;
  /** A value as keyv stores it. */
  serialize(value: unknown): Promise<string>;
  /** The Redis key of a claim (a `once` marker is one, so `Store.holder` sees it). */
  claimKey(key: string): string;
  unlinkStarting(start: string): Promise<number>;
}

const ms = (n: number) => String(Math.max(1, Math.round(n)));

export class RedisLeases implements LeaseBackend {
  private readonly d: RedisLeaseDeps;

  constructor(d: RedisLeaseDeps) {
    this.d = d;
  }

  private leaseKey(key: string): string {
    return `tm:lease:${key}`;
  }

  private genKey(key: string): string {
    return `tm:lease-gen:${key}`;
  }

  async acquire(key: string, holder: string, ttlMs: number): Promise<number | undefined> {
    const res = await (await this.d.client()).eval(ACQUIRE, {
      keys: [this.leaseKey(key), this.genKey(key)],
      arguments: [holder, ms(ttlMs), ms(GEN_TTL_MS)],
    });
    const gen = Number(res);
    return gen > 0 ? gen : undefined;
  }

  async renew(key: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    const res = await (await this.d.client()).eval(RENEW, {
      keys: [this.leaseKey(key)],
      arguments: [holder, String(token), ms(ttlMs)],
    });
    return Number(res) === 1;
  }

  async release(key: string, holder: string, token: number): Promise<void> {
    await (await this.d.client()).eval(RELEASE, {
      keys: [this.leaseKey(key)],
      arguments: [holder, String(token)],
    });
  }

  async current(key: string): Promise<number | undefined> {
    const gen = await (await this.d.client()).hGet(this.leaseKey(key), 'gen');
    return gen === null || gen === undefined ? undefined : Number(gen);
  }

  async holder(key: string): Promise<{ holder: string; token: number } | undefined> {
    const c = await this.d.client();
    const [holder, gen] = await Promise.all([
      c.hGet(this.leaseKey(key), 'holder'),
      c.hGet(this.leaseKey(key), 'gen'),
    ]);
    return holder && gen ? { holder: String(holder), token: Number(gen) } : undefined;
  }

  async writeFenced(
    entries: ReadonlyArray<readonly [string, unknown]>,
    guard: WriteGuard,
  ): Promise<WriteOutcome> {
    const lease = this.leaseKey(guard.lease);
    const values = await Promise.all(entries.map(([, v]) => this.d.serialize(v)));
    const res = await (await this.d.client()).eval(WRITE_FENCED, {
      keys: [
        lease,
        guard.once ? this.d.claimKey(guard.once) : lease,
        ...entries.map(([k]) => this.d.kvKey(k)),
      ],
      arguments: [String(guard.token), guard.once ? '1' : '0', ms(ONCE_TTL_MS), ...values],
    });
    return String(res) as WriteOutcome;
  }

  async wrote(once: string): Promise<boolean> {
    return Number(await (await this.d.client()).exists(this.d.claimKey(once))) > 0;
  }

  async forget(prefix: string): Promise<number> {
    return this.d.unlinkStarting(this.genKey(prefix));
  }
}
