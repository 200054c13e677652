// When embeddings fail, retrieval falls back to lexical search and the answer still comes.
import type { Logger } from '../../log/logger.ts';
import { FALLBACK_WARN_INTERVAL_MS, ThrottledFallbackLog } from '../fallback-log.ts';

export const EMBEDDING_WARN_INTERVAL_MS = FALLBACK_WARN_INTERVAL_MS;

export class EmbeddingFallbackLog extends ThrottledFallbackLog {
  constructor(log: Logger, intervalMs = EMBEDDING_WARN_INTERVAL_MS, now: () => number = Date.now) {
    super(log, 'embeddings failed, searching by words only', intervalMs, now);
  }
}
