// The active Discord gateway's session in Redis, one key per application, so the standby that
// takes the lease can RESUME it (see ARCHITECTURE.md, "Scaling out"). The key outlives any resume
// window Discord grants; a session too old to resume is refused by Discord, not by us.
import type { Redis } from 'ioredis';
import type { GatewaySessionInfo, GatewaySessionStore } from '../model/gateway-session.ts';

const TTL_MS = 24 * 3_600_000;

function parse(raw: string | null): GatewaySessionInfo | undefined {
  if (raw === null) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<GatewaySessionInfo>;
    if (
      typeof v.sessionId !== 'string' ||
      typeof v.sequence !== 'number' ||
      typeof v.resumeURL !== 'string' ||
      typeof v.shardId !== 'number' ||
      typeof v.shardCount !== 'number' ||
      typeof v.savedAt !== 'number'
    )
      return undefined;
    return v as GatewaySessionInfo;
  } catch {
    return undefined;
  }
}

export class RedisGatewaySessions implements GatewaySessionStore {
  private readonly redis: Redis;
  private readonly key: string;

  constructor(redis: Redis, applicationId: string) {
    this.redis = redis;
    this.key = `threadmind:gateway-session:discord:${applicationId}`;
  }

  async load(): Promise<GatewaySessionInfo | undefined> {
    return parse(await this.redis.get(this.key));
  }

  async save(info: GatewaySessionInfo): Promise<void> {
    await this.redis.set(this.key, JSON.stringify(info), 'PX', TTL_MS);
  }

  async clear(): Promise<void> {
    await this.redis.del(this.key);
  }
}
