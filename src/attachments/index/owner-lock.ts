// Serialises writes to one owner's file list: in this process with a KeyedQueue (no polling
// among our own callers), across replicas with a `Lease` on the owner's key (read-modify-write of
// the list would otherwise lose a file when two uploads land at once).
import { Leases } from '../../store/lease.ts';
import type { Store } from '../../store/store.ts';
import { KeyedQueue } from '../../util/keyed-queue.ts';

export interface LockOptions {
  /** How long a lease lives if its holder dies mid-write. */
  ttlMs: number;
  /** How long to wait for another replica's write before giving up. */
  waitMs: number;
}

export class OwnerLocks {
  /** Unbounded: every write waits its turn; the lease only ever sees one of ours per key. */
  private readonly queue = new KeyedQueue();
  private readonly leases: Leases;
  private readonly opts: LockOptions;

  constructor(store: Store, opts: LockOptions) {
    this.opts = opts;
    this.leases = new Leases(store, { ttlMs: opts.ttlMs });
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.queue.run(key, () => this.leased(key, task));
  }

  private async leased<T>(key: string, task: () => Promise<T>): Promise<T> {
    const held = await this.leases.acquire(key, this.opts.waitMs).catch((err: unknown) => {
      throw new Error(`attachment index: ${key} stayed locked for ${this.opts.waitMs} ms`, {
        cause: err,
      });
    });
    try {
      return await task();
    } finally {
      await held.release();
    }
  }
}
