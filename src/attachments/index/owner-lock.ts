// Serialises writes to one owner's file list: in this process with a KeyedQueue (no polling
// among our own callers), across replicas with a store claim (read-modify-write of the list would
// otherwise lose a file when two uploads land at once).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../store/store.ts';
import { KeyedQueue } from '../../util/keyed-queue.ts';

export interface LockOptions {
  /** How long a claim lives if its holder dies mid-write. */
  ttlMs: number;
  /** How long to wait for another replica's write before giving up. */
  waitMs: number;
}

export class OwnerLocks {
  /** Unbounded: every write waits its turn; the store claim only ever sees one of ours per key. */
  private readonly queue = new KeyedQueue();
  private readonly store: Store;
  private readonly opts: LockOptions;

  constructor(store: Store, opts: LockOptions) {
    this.store = store;
    this.opts = opts;
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.queue.run(key, () => this.claimed(key, task));
  }

  private async claimed<T>(key: string, task: () => Promise<T>): Promise<T> {
    const holder = randomUUID();
    const deadline = Date.now() + this.opts.waitMs;
    let pause = 5;
    while (!(await this.store.claim(key, holder, this.opts.ttlMs))) {
      if (Date.now() >= deadline) {
        throw new Error(`attachment index: ${key} stayed locked for ${this.opts.waitMs} ms`);
      }
      await sleep(pause);
      pause = Math.min(pause * 2, 100);
    }
    try {
      return await task();
    } finally {
      await this.store.release(key, holder);
    }
  }
}
