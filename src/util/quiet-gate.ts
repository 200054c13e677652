/**
 * Holds work back while requests keep coming: a burst of events is acknowledged first and worked
 * on after (the acknowledgement has a deadline; the answer does not). `arrived()` when a request
 * comes in and `answered()` once its answer is sent; `wait()` resolves, in call order, once no
 * request is open and none came or was answered for `quietMs`, or `maxHoldMs` after the oldest
 * waiting call. A lone event waits `quietMs` only.
 *
 * Released calls go `slice` at a time, each slice on a turn of the event loop of its own: the
 * requests that arrive meanwhile are read and acknowledged between slices instead of after the
 * whole burst's work. One timer serves a whole quiet period (a burst does not re-arm one per call).
 * `now` is the clock the quiet and the hold are measured on (a test passes a mocked one).
 */
export class QuietGate {
  private waiters: { at: number; resolve: () => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private releasing = false;
  private open = 0;
  private lastActivity = Number.NEGATIVE_INFINITY;
  private readonly quietMs: number;
  private readonly maxHoldMs: number;
  private readonly slice: number;
  private readonly now: () => number;

  constructor(
    quietMs: number,
    maxHoldMs: number,
    slice = Number.POSITIVE_INFINITY,
    now: () => number = () => performance.now(),
  ) {
    this.quietMs = quietMs;
    this.maxHoldMs = maxHoldMs;
    this.slice = slice;
    this.now = now;
  }

  /** A request came in: nothing is released until it is answered. */
  arrived(): void {
    this.open += 1;
    this.lastActivity = this.now();
  }

  /** A request `arrived()` earlier has been answered (or its connection closed). */
  answered(): void {
    this.open = Math.max(0, this.open - 1);
    this.lastActivity = this.now();
  }

  wait(): Promise<void> {
    const now = this.now();
    this.lastActivity = Math.max(this.lastActivity, now);
    return new Promise<void>((resolve) => {
      this.waiters.push({ at: now, resolve });
      // The first look comes at the hold's end if that is sooner than a quiet period.
      if (!this.timer && !this.releasing) this.schedule(Math.min(this.quietMs, this.maxHoldMs));
    });
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.check(), Math.max(0, ms));
  }

  private check(): void {
    this.timer = undefined;
    const oldest = this.waiters[0];
    if (!oldest) return;
    const now = this.now();
    const holdLeft = oldest.at + this.maxHoldMs - now;
    const quietLeft = this.lastActivity + this.quietMs - now;
    if (holdLeft > 0 && (this.open > 0 || quietLeft > 0)) {
      // Still busy: look again once it may be quiet (an open request is looked at again as often).
      this.schedule(Math.min(holdLeft, quietLeft > 0 ? quietLeft : this.quietMs));
      return;
    }
    const out = this.waiters.splice(0, this.slice);
    for (const w of out) w.resolve();
    if (this.waiters.length === 0) return;
    // The next slice after the I/O that came meanwhile (setImmediate runs after the poll phase).
    this.releasing = true;
    setImmediate(() => {
      this.releasing = false;
      this.check();
    });
  }
}
