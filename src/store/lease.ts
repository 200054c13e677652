// The one lease primitive: a key held by one process at a time, renewed while held, lapsing when
// its holder dies or stalls, and numbered. The session lock, the Discord gateway lease and the
// attachment index's owner lock are all this. The number (the generation, one higher at every
// acquisition of a key) is the holder's fencing token: a write that carries a token no longer
// current comes from a holder that lost the lease, and the store or the port refuses it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fence } from './lease-backend.ts';
import type { Store } from './store.ts';

export interface HeldLease {
  readonly key: string;
  /** The fencing token: this holder's generation of the key. */
  readonly token: number;
  readonly fence: Fence;
  /** Aborted when the lease is lost (a renewal found it gone, or none succeeded within the TTL). */
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

export interface LeaseOptions {
  ttlMs: number;
  /** How often a held lease is renewed (default: a third of the TTL, at least every second). */
  renewMs?: number;
  /** The longest pause between two tries while waiting (the pauses start at 5 ms and double). */
  pollMs?: number;
  /** The reason a lost lease aborts with (the core passes its coded error). */
  lostReason?: (key: string) => Error;
  onRenewError?: (err: unknown) => void;
}

/** Thrown by `acquire` when the key stayed held by another for the whole wait. */
export class LeaseBusyError extends Error {
  constructor(key: string, waitMs: number) {
    super(`${key} stayed held by another for ${waitMs} ms`);
    this.name = 'LeaseBusyError';
  }
}

export class Leases {
  private readonly store: Pick<Store, 'leases'>;
  private readonly o: LeaseOptions;

  constructor(store: Pick<Store, 'leases'>, o: LeaseOptions) {
    this.store = store;
    this.o = o;
  }

  /** Takes the lease now if nobody holds it (`holder` names this holder in the store). */
  async tryAcquire(key: string, holder: string = randomUUID()): Promise<HeldLease | undefined> {
    const token = await this.store.leases.acquire(key, holder, this.o.ttlMs);
    return token === undefined ? undefined : this.held(key, holder, token);
  }

  /** Waits up to `waitMs` for the lease; throws `LeaseBusyError` when it cannot be had in time. */
  async acquire(key: string, waitMs: number): Promise<HeldLease> {
    const deadline = Date.now() + waitMs;
    const maxPause = this.o.pollMs ?? 100;
    let pause = Math.min(5, maxPause);
    for (;;) {
      const got = await this.tryAcquire(key);
      if (got) return got;
      if (Date.now() >= deadline) throw new LeaseBusyError(key, waitMs);
      await sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
      pause = Math.min(pause * 2, maxPause);
    }
  }

  /** True while `fence`'s token is the current generation of a held lease. */
  async isCurrent(fence: Fence): Promise<boolean> {
    return (await this.store.leases.current(fence.lease)) === fence.token;
  }

  private held(key: string, holder: string, token: number): HeldLease {
    const { ttlMs } = this.o;
    const backend = this.store.leases;
    const lost = new AbortController();
    let renewedAt = Date.now();
    let done = false;
    const lose = () => {
      clearInterval(timer);
      if (done || lost.signal.aborted) return;
      lost.abort(this.o.lostReason?.(key) ?? new Error(`lost the lease on ${key}`));
    };
    const timer = setInterval(
      () => {
        backend.renew(key, holder, token, ttlMs).then(
          (ok) => {
            if (ok) renewedAt = Date.now();
            else lose();
          },
          (err: unknown) => {
            this.o.onRenewError?.(err);
            // Past the TTL without a renewal, another process may hold it now.
            if (Date.now() - renewedAt >= ttlMs) lose();
          },
        );
      },
      this.o.renewMs ?? Math.max(1000, Math.floor(ttlMs / 3)),
    );
    timer.unref();
    return {
      key,
      token,
      fence: { lease: key, token },
      signal: lost.signal,
      release: async () => {
        done = true;
        clearInterval(timer);
        await backend.release(key, holder, token);
      },
    };
  }
}
