// When to try a server again: doubling delays from `initialMs` up to `maxMs`, each with jitter (a
// fleet of replicas restarted together does not knock on a recovering server at the same instant).
// One attempt at a time; `close` stops it for good.

export interface RetryTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: RetryTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class Reconnector {
  #attempt = 0;
  #timer: unknown;
  #closed = false;
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #run: () => Promise<boolean>;
  readonly #timers: RetryTimers;
  readonly #random: () => number;

  /** `run` connects once and says whether it succeeded. */
  constructor(
    o: { initialMs: number; maxMs: number; timers?: RetryTimers; random?: () => number },
    run: () => Promise<boolean>,
  ) {
    this.#initialMs = o.initialMs;
    this.#maxMs = o.maxMs;
    this.#timers = o.timers ?? realTimers;
    this.#random = o.random ?? Math.random;
    this.#run = run;
  }

  /** The delay before attempt `n` (0-based): half of it fixed, half random. */
  delayOf(n: number): number {
    const full = Math.min(this.#maxMs, this.#initialMs * 2 ** Math.min(n, 30));
    return Math.round(full / 2 + (full / 2) * this.#random());
  }

  get pending(): boolean {
    return this.#timer !== undefined;
  }

  /** Plans the next attempt unless one is planned; `soon` starts over from the shortest delay. */
  schedule(soon = false): void {
    if (this.#closed || this.#timer !== undefined) return;
    if (soon) this.#attempt = 0;
    const ms = this.delayOf(this.#attempt++);
    this.#timer = this.#timers.set(() => {
      this.#timer = undefined;
      this.#run().then(
        (ok) => {
          if (ok) this.#attempt = 0;
          else this.schedule();
        },
        () => this.schedule(),
      );
    }, ms);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#timers.clear(this.#timer);
    this.#timer = undefined;
  }
}
