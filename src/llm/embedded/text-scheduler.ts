// Shares the texts of the requests in hand among the embedding engine's contexts, one text per
// context at a time. A free context takes the next text of the request with the fewest texts not
// yet started (the earliest of equals), so a search's one query text goes before the rest of an
// ingest batch instead of waiting for all of it: a query slower than its deadline would turn that
// search into a search by words.

interface Pending<T> {
  texts: readonly string[];
  signal: AbortSignal | undefined;
  out: T[];
  /** Texts handed to a context so far, and finished so far. */
  started: number;
  finished: number;
  failed: boolean;
  resolve(out: T[]): void;
  reject(err: unknown): void;
}

export class TextScheduler<W, T> {
  private readonly idle: W[];
  private readonly size: number;
  private readonly evaluate: (worker: W, text: string) => Promise<T>;
  private pending: Pending<T>[] = [];
  private waiters: (() => void)[] = [];

  constructor(workers: readonly W[], evaluate: (worker: W, text: string) => Promise<T>) {
    this.idle = [...workers];
    this.size = workers.length;
    this.evaluate = evaluate;
  }

  /** One result per text, in order; the signal is checked before each text. */
  run(texts: readonly string[], signal?: AbortSignal): Promise<T[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise<T[]>((resolve, reject) => {
      this.pending.push({
        texts,
        signal,
        out: new Array(texts.length),
        started: 0,
        finished: 0,
        failed: false,
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Settles once every request in hand has and every context is free. */
  drained(): Promise<void> {
    if (this.pending.length === 0 && this.idle.length === this.size) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private pick(): Pending<T> | undefined {
    let best: Pending<T> | undefined;
    for (const p of this.pending) {
      const left = p.texts.length - p.started;
      if (left > 0 && (!best || left < best.texts.length - best.started)) best = p;
    }
    return best;
  }

  private dispatch(): void {
    for (let job = this.pick(); job && this.idle.length > 0; job = this.pick()) {
      const worker = this.idle.pop() as W;
      void this.step(worker, job, job.started++);
    }
    if (this.pending.length === 0 && this.idle.length === this.size) {
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Never rejects: a failure fails its request, which takes no more texts. */
  private async step(worker: W, job: Pending<T>, i: number): Promise<void> {
    try {
      if (!job.failed) {
        job.signal?.throwIfAborted();
        job.out[i] = await this.evaluate(worker, job.texts[i] ?? '');
      }
    } catch (err) {
      if (!job.failed) {
        job.failed = true;
        this.pending = this.pending.filter((p) => p !== job);
        job.reject(err);
      }
    } finally {
      job.finished++;
      if (!job.failed && job.finished === job.texts.length) {
        this.pending = this.pending.filter((p) => p !== job);
        job.resolve(job.out);
      }
      this.idle.push(worker);
      this.dispatch();
    }
  }
}
