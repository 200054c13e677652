/**
 * One write per key at a time, of the latest state: a change made while its key is being written
 * goes out in one more write, read when that write starts, so a burst of changes to one record
 * costs two writes, not one each, and a slower write can never land after a newer one.
 */
export interface WriteTarget {
  set(key: string, value: unknown): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

/** What a write puts under its key, read when the write happens; undefined deletes the key. */
export type LatestValue = () => unknown;

export class LatestWrites {
  private readonly target: WriteTarget;
  private readonly writes = new Map<
    string,
    { done: Promise<void>; again: boolean; value: LatestValue }
  >();

  constructor(target: WriteTarget) {
    this.target = target;
  }

  /** Resolves once the key holds this value or a later one. */
  write(key: string, value: LatestValue): Promise<void> {
    const pending = this.writes.get(key);
    if (pending) {
      pending.again = true;
      pending.value = value;
      return pending.done;
    }
    const w = { done: Promise.resolve(), again: true, value };
    w.done = (async () => {
      try {
        while (w.again) {
          w.again = false;
          const v = w.value();
          if (v === undefined) await this.target.delete(key);
          else await this.target.set(key, v);
        }
      } finally {
        this.writes.delete(key);
      }
    })();
    this.writes.set(key, w);
    return w.done;
  }

  /** Resolves once every change so far is written (or has failed). */
  async flush(): Promise<void> {
    while (this.writes.size > 0)
      await Promise.allSettled([...this.writes.values()].map((w) => w.done));
  }
}
