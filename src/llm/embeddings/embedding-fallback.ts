// When embeddings fail, retrieval falls back to lexical search and the answer still comes. The
// failure is logged at most once per interval per reason, so a GPU node that is down for an hour
// does not write a warning per search.
import type { Logger } from '../../log/logger.ts';

export const EMBEDDING_WARN_INTERVAL_MS = 60_000;

export class EmbeddingFallbackLog {
  private readonly last = new Map<string, number>();
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(log: Logger, intervalMs = EMBEDDING_WARN_INTERVAL_MS, now: () => number = Date.now) {
    this.log = log;
    this.intervalMs = intervalMs;
    this.now = now;
  }

  /** Logs that `what` (e.g. "attachment search") fell back to lexical, unless it did so lately. */
  fellBack(what: string, err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    const key = `${what}\n${reason}`;
    const t = this.now();
    const prev = this.last.get(key);
    if (prev !== undefined && t - prev < this.intervalMs) return;
    this.last.set(key, t);
    if (this.last.size > 256) this.last.clear(); // reasons carry no unbounded data, but stay safe
    this.log.warn({ err, what }, `${what}: embeddings failed, searching by words only`);
  }
}
