/**
 * Runs tasks one at a time per key, in arrival order (a message sent while its session is busy
 * waits its turn), with an optional bound on how many may wait per key.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly depth = new Map<string, number>();
  private readonly maxPerKey: number;

  /** Without `maxPerKey` (or with Infinity) the queue is unbounded: every task is taken. */
  constructor(maxPerKey = Number.POSITIVE_INFINITY) {
    this.maxPerKey = maxPerKey;
  }

  /** Tasks waiting or running, over all keys. */
  get size(): number {
    let n = 0;
    for (const d of this.depth.values()) n += d;
    return n;
  }

  pending(key: string): number {
    return this.depth.get(key) ?? 0;
  }

  /** Returns undefined when the key already has `maxPerKey` tasks; otherwise the task's result. */
  push<T>(key: string, task: () => Promise<T>): Promise<T> | undefined {
    const n = this.pending(key);
    if (n >= this.maxPerKey) return undefined;
    this.depth.set(key, n + 1);
    const prev = this.tails.get(key) ?? Promise.resolve();
    const result = prev.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      const left = (this.depth.get(key) ?? 1) - 1;
      if (left === 0) {
        this.depth.delete(key);
        if (this.tails.get(key) === tail) this.tails.delete(key);
      } else {
        this.depth.set(key, left);
      }
    });
    return result;
  }

  /** Like `push`, for an unbounded queue: always the task's result (rejects if the key is full). */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return (
      this.push(key, task) ??
      Promise.reject(new Error(`KeyedQueue: ${key} already has ${this.maxPerKey} tasks`))
    );
  }
}
