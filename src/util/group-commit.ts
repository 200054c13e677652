/**
 * Group commit: calls that arrive while a flush is running wait for the next flush, which takes
 * them all in one go (one store round trip for many). An idle batcher flushes on the next turn of
 * the event loop, so the events a burst delivered together share a flush. Flushes run one at a
 * time and take items in call order, so what is called first is flushed first (or in the same
 * flush, in call order).
 */
export class GroupCommit<T, R> {
  private waiting: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private running = false;
  private scheduled = false;
  private readonly flush: (items: T[]) => Promise<R[]>;
  private readonly maxBatch: number;

  /** `flush` answers every item, in the order given. */
  constructor(flush: (items: T[]) => Promise<R[]>, maxBatch: number) {
    this.flush = flush;
    this.maxBatch = maxBatch;
  }

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Items not yet flushed (for a drain). */
  get pending(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    const batch = this.waiting.splice(0, this.maxBatch);
    try {
      const results = await this.flush(batch.map((b) => b.item));
      for (const [i, b] of batch.entries()) b.resolve(results[i] as R);
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      this.running = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
