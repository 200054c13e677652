import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from './store.ts';

export interface HeldLock {
  /** Aborted when the lock is lost (a renewal found someone else holding it, or none succeeded in time). */
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

export interface SessionLockOptions {
  ttlMs: number;
  pollMs?: number;
  /** The reason a lost lock aborts with (the core passes its coded error). */
  lostReason?: (sessionKey: string) => Error;
  onRenewError?: (err: unknown) => void;
}

/**
 * A per-session lock in the store, so replicas sharing Redis never run two turns of one session at
 * once. Within one process the turn queue already orders turns; this covers the cross-replica case.
 * The claim is renewed while held and frees itself after `ttlMs` if its holder dies; a holder that
 * loses it is told through `signal`, so it stops writing.
 */
export class SessionLock {
  private readonly store: Store;
  private readonly o: SessionLockOptions;

  constructor(store: Store, o: SessionLockOptions) {
    this.store = store;
    this.o = o;
  }

  /** Waits up to `waitMs` for the lock; throws when it cannot be had in time. */
  async acquire(sessionKey: string, waitMs: number): Promise<HeldLock> {
    const key = `lock:${sessionKey}`;
    const holder = randomUUID();
    const { ttlMs } = this.o;
    const deadline = Date.now() + waitMs;
    while (!(await this.store.claim(key, holder, ttlMs))) {
      if (Date.now() >= deadline) {
        throw new Error(`session ${sessionKey} is locked by another worker`);
      }
      await sleep(this.o.pollMs ?? 100);
    }
    const lost = new AbortController();
    let renewedAt = Date.now();
    const renewEvery = Math.max(1000, Math.floor(ttlMs / 3));
    const lose = () => {
      clearInterval(timer);
      lost.abort(this.o.lostReason?.(sessionKey) ?? new Error(`lost the lock on ${sessionKey}`));
    };
    const timer = setInterval(() => {
      this.store.renew(key, holder, ttlMs).then(
        (ok) => {
          if (ok) renewedAt = Date.now();
          else lose();
        },
        (err: unknown) => {
          this.o.onRenewError?.(err);
          // Past the TTL without a renewal, another replica may hold it now.
          if (Date.now() - renewedAt >= ttlMs) lose();
        },
      );
    }, renewEvery);
    timer.unref();
    return {
      signal: lost.signal,
      release: async () => {
        clearInterval(timer);
        await this.store.release(key, holder);
      },
    };
  }
}
