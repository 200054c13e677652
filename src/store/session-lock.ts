import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from './store.ts';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * A per-session lock in the store, so replicas sharing Redis never run two turns of one session at
 * once. Within one process the turn queue already orders turns; this covers the cross-replica case.
 * The claim is renewed while held, and frees itself after `ttlMs` if its holder dies.
 */
export class SessionLock {
  private readonly store: Store;
  private readonly ttlMs: number;
  private readonly pollMs: number;

  constructor(store: Store, ttlMs: number, pollMs = 100) {
    this.store = store;
    this.ttlMs = ttlMs;
    this.pollMs = pollMs;
  }

  /** Waits up to `waitMs` for the lock; throws when it cannot be had in time. */
  async acquire(sessionKey: string, waitMs: number): Promise<HeldLock> {
    const key = `lock:${sessionKey}`;
    const holder = randomUUID();
    const deadline = Date.now() + waitMs;
    while (!(await this.store.claim(key, holder, this.ttlMs))) {
      if (Date.now() >= deadline) {
        throw new Error(`session ${sessionKey} is locked by another worker`);
      }
      await sleep(this.pollMs);
    }
    const renewEvery = Math.max(1000, Math.floor(this.ttlMs / 3));
    const timer = setInterval(() => {
      this.store.renew(key, holder, this.ttlMs).catch(() => undefined);
    }, renewEvery);
    timer.unref();
    return {
      release: async () => {
        clearInterval(timer);
        await this.store.release(key, holder);
      },
    };
  }
}
