// The active Discord gateway's session in the store, one key per application, so the standby that
// takes the lease can RESUME it (see ARCHITECTURE.md, "Scaling out"). A session too old to resume
// is refused by Discord, not by us. Saves are fenced with the gateway lease's token: a holder that
// lost its lease without noticing yet (a stall past its renewal) cannot overwrite the session the
// new holder saved, in the same step as the token's check.
import type { GatewaySessionInfo, GatewaySessionStore } from '../model/gateway-session.ts';
import type { Fence } from '../store/lease-backend.ts';
import type { Store } from '../store/store.ts';

function parse(raw: unknown): GatewaySessionInfo | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const v = raw as Partial<GatewaySessionInfo>;
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
}

/** A save refused: the gateway lease is no longer this process's (or not held at all). */
export class GatewaySessionFenced extends Error {
  constructor() {
    super('the gateway lease is not held by this process: its session is not saved');
    this.name = 'GatewaySessionFenced';
  }
}

export class StoreGatewaySessions implements GatewaySessionStore {
  private readonly store: Store;
  private readonly key: string;
  private readonly fence: () => Fence | undefined;

  /** `fence`: the gateway lease this process holds now, if it holds it. */
  constructor(store: Store, applicationId: string, fence: () => Fence | undefined) {
    this.store = store;
    this.key = `gateway-session:discord:${applicationId}`;
    this.fence = fence;
  }

  async load(): Promise<GatewaySessionInfo | undefined> {
    return parse(await this.store.kv.get(this.key));
  }

  async save(info: GatewaySessionInfo): Promise<void> {
    const fence = this.fence();
    const written = fence
      ? await this.store.leases.writeFenced([[this.key, info]], fence)
      : 'fenced';
    if (written === 'fenced') throw new GatewaySessionFenced();
  }

  async clear(): Promise<void> {
    await this.store.kv.delete(this.key);
  }
}
