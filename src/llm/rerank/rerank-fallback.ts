// When reranking fails, search keeps the fused order (and the first-stage floors) and the answer
// still comes. The failure is logged at most once per interval per reason, like embeddings'.
import type { Logger } from '../../log/logger.ts';

export const RERANK_WARN_INTERVAL_MS = 60_000;

export class RerankFallbackLog {
  private readonly last = new Map<string, number>();
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(log: Logger, intervalMs = RERANK_WARN_INTERVAL_MS, now: () => number = Date.now) {
    this.log = log;
    this.intervalMs = intervalMs;
    this.now = now;
  }

  /** Logs that `what` (e.g. "attachment search") kept its fused order, unless it did so lately. */
  fellBack(what: string, err: unknown): void {
    const reason = err instanceof Error ? err.message : String(err);
    const key = `${what}\n${reason}`;
    const t = this.now();
    const prev = this.last.get(key);
    if (prev !== undefined && t - prev < this.intervalMs) return;
    this.last.set(key, t);
    if (this.last.size > 256) this.last.clear();
    this.log.warn({ err, what }, `${what}: reranking failed, keeping the first-stage order`);
  }
}
