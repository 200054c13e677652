/**
 * Runs an answer's flushes one after another. While one is waiting to run, further non-final
 * requests are dropped (it will send the newest text anyway), so a slow platform never piles up
 * edits. The first failure stops later flushes and is kept for whoever finishes the answer.
 */
export class FlushChain {
  private chain: Promise<void> = Promise.resolve();
  private waiting = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly flush: (final: boolean) => Promise<void>;
  private readonly onError: (err: unknown) => void;
  private failure: unknown;

  constructor(flush: (final: boolean) => Promise<void>, onError: (err: unknown) => void) {
    this.flush = flush;
    this.onError = onError;
  }

  request(final: boolean): void {
    if (!final && this.waiting) return;
    this.waiting = true;
    this.chain = this.chain
      .then(() => {
        this.waiting = false;
        return this.failure ? undefined : this.flush(final);
      })
      .catch((err: unknown) => {
        this.failure = err;
        this.onError(err);
      });
  }

  /** A non-final flush after `delayMs`, unless one is already scheduled (new text rides along). */
  schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.request(false);
    }, delayMs);
  }

  /** The last flush: runs after everything pending and throws the first failure, if any. */
  async final(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.request(true);
    await this.chain;
    if (this.failure) throw this.failure;
  }

  /** Waits for pending flushes and forgets a failure, so a last message can still be tried. */
  async quiesce(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
    this.failure = undefined;
  }
}
