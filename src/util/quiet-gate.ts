/**
 * Holds work back while calls keep coming: `wait()` resolves, for every waiting call at once and in
 * call order, when no new call came for `quietMs`, or `maxHoldMs` after the oldest waiting call. A
 * burst of events is acknowledged first and worked on after (the acknowledgement has a deadline;
 * the answer does not, and a lone event waits `quietMs` only).
 */
export class QuietGate {
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private oldest = 0;
  private readonly quietMs: number;
  private readonly maxHoldMs: number;

  constructor(quietMs: number, maxHoldMs: number) {
    this.quietMs = quietMs;
    this.maxHoldMs = maxHoldMs;
  }

  wait(): Promise<void> {
    const now = performance.now();
    if (this.waiters.length === 0) this.oldest = now;
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      clearTimeout(this.timer);
      const left = Math.min(this.quietMs, this.oldest + this.maxHoldMs - now);
      this.timer = setTimeout(() => this.release(), Math.max(0, left));
    });
  }

  private release(): void {
    const waiting = this.waiters;
    this.waiters = [];
    this.timer = undefined;
    for (const resolve of waiting) resolve();
  }
}
