// How far each kind of count was from the server's real prompt_tokens: a running mean of the
// absolute percentage error per source, cheap enough to keep forever and to export as gauges.
import { COUNT_SOURCES, type CountSource, type TokenCount } from './types.ts';

export interface SourceError {
  /** Observations so far. */
  n: number;
  /** Mean |estimate − actual| / actual, in percent. */
  meanAbsPct: number;
}

export class ErrorStats {
  private readonly sums = new Map<CountSource, { n: number; sum: number }>();

  observe(estimate: TokenCount, actual: number): void {
    if (!Number.isFinite(actual) || actual <= 0 || !Number.isFinite(estimate.tokens)) return;
    const entry = this.sums.get(estimate.source) ?? { n: 0, sum: 0 };
    entry.n += 1;
    entry.sum += (100 * Math.abs(estimate.tokens - actual)) / actual;
    this.sums.set(estimate.source, entry);
  }

  snapshot(): Record<CountSource, SourceError> {
    const out = {} as Record<CountSource, SourceError>;
    for (const source of COUNT_SOURCES) {
      const e = this.sums.get(source);
      out[source] = { n: e?.n ?? 0, meanAbsPct: e && e.n > 0 ? e.sum / e.n : 0 };
    }
    return out;
  }
}
