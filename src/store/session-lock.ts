// The per-session lock: a lease on `lock:<session>`, so replicas sharing Redis never run two turns
// of one session at once. Within one process the turn queue already orders turns.

import { LeaseBusyError, Leases } from './lease.ts';
import type { Fence } from './lease-backend.ts';
import type { Store } from './store.ts';

export interface HeldLock {
  /** Aborted when the lock is lost (a renewal found someone else holding it, or none succeeded in time). */
  readonly signal: AbortSignal;
  /** The lock's lease and generation: the turn's history write is fenced with it. */
  readonly fence: Fence;
  release(): Promise<void>;
}

export interface SessionLockOptions {
  ttlMs: number;
  pollMs?: number;
  /** The reason a lost lock aborts with (the core passes its coded error). */
  lostReason?: (sessionKey: string) => Error;
  onRenewError?: (err: unknown) => void;
}

export class SessionLock {
  private readonly leases: Leases;

  constructor(store: Store, o: SessionLockOptions) {
    const { lostReason, ...rest } = o;
    this.leases = new Leases(store, {
      ...rest,
      ...(lostReason ? { lostReason: (key: string) => lostReason(key.slice('lock:'.length)) } : {}),
    });
  }

  /** Waits up to `waitMs` for the lock; throws when it cannot be had in time. */
  async acquire(sessionKey: string, waitMs: number): Promise<HeldLock> {
    try {
      return await this.leases.acquire(`lock:${sessionKey}`, waitMs);
    } catch (err) {
      if (err instanceof LeaseBusyError)
        throw new Error(`session ${sessionKey} is locked by another worker`);
      throw err;
    }
  }
}
