// When reranking fails, search keeps the fused order (and the first-stage floors) and the answer
// still comes.
import type { Logger } from '../../log/logger.ts';
import { FALLBACK_WARN_INTERVAL_MS, ThrottledFallbackLog } from '../fallback-log.ts';

export const RERANK_WARN_INTERVAL_MS = FALLBACK_WARN_INTERVAL_MS;

export class RerankFallbackLog extends ThrottledFallbackLog {
  constructor(log: Logger, intervalMs = RERANK_WARN_INTERVAL_MS, now: () => number = Date.now) {
    super(log, 'reranking failed, keeping the first-stage order', intervalMs, now);
  }
}
