// A side model (embeddings, a reranker) that fails degrades search instead of failing the answer.
// The failure is logged at most once per interval per reason, so an endpoint that is down for an
// hour does not write a warning per search.
import type { Logger } from '../log/logger.ts';

export const FALLBACK_WARN_INTERVAL_MS = 60_000;

export class ThrottledFallbackLog {
  private readonly last = new Map<string, number>();
  private readonly log: Logger;
  private readonly consequence: string;
  private readonly intervalMs: number;
  private readonly now: () => number;

  /** `consequence` ends the warning, e.g. "embeddings failed, searching by words only". */
  constructor(
    log: Logger,
    consequence: string,
    intervalMs = FALLBACK_WARN_INTERVAL_MS,
    now: () => number = Date.now,
  ) {
    this.log = log;
    this.consequence = consequence;
    this.intervalMs = intervalMs;
    this.now = now;
  }

  /** Logs that `what` (e.g. "attachment search") fell back, unless it did so lately. */
  fellBack(what: string, err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    const key = `${what}\n${reason}`;
    const t = this.now();
    const prev = this.last.get(key);
    if (prev !== undefined && t - prev < this.intervalMs) return;
    this.last.set(key, t);
    if (this.last.size > 256) this.last.clear(); // reasons carry no unbounded data, but stay safe
    this.log.warn({ err, what }, `${what}: ${this.consequence}`);
  }
}
