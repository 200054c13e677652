// The evaluation's only contact with the attachment index: build one (with the embedder and the
// reranker when given), search it in a given mode, and read the text a hit shows the model.
// `reranked` is hybrid search with the reranker's second stage; the other modes never rerank. Everything
// else in the runner is independent of how search is implemented, so the same labels score lexical,
// vector and hybrid search alike.
import {
  AttachmentIndex,
  type AttachmentIndexOptions,
} from '../../src/attachments/index/attachment-index.ts';
import type { SearchHit } from '../../src/attachments/types.ts';
import type { Embedder } from '../../src/llm/embeddings/embedder.ts';
import type { Reranker } from '../../src/llm/rerank/reranker.ts';
import type { Owner } from '../../src/model/thread-ref.ts';
import type { Store } from '../../src/store/store.ts';

export const SEARCH_MODES = ['lexical', 'vector', 'hybrid', 'reranked'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The modes `AttachmentIndex.search(owners, query, limit, { mode })` supports. */
export const SUPPORTED_MODES: readonly SearchMode[] = SEARCH_MODES;

export function isSupported(mode: SearchMode): boolean {
  return SUPPORTED_MODES.includes(mode);
}

export function needsEmbedder(modes: readonly SearchMode[]): boolean {
  return modes.some((m) => m !== 'lexical' && isSupported(m));
}

/**
 * Deadlines far above any real one: the evaluation measures what search finds, and on a loaded
 * machine a query embedding that misses the product's 2 s deadline would be scored as a miss of
 * the ranking (the product falls back to words then; that fallback has tests of its own).
 */
const EVAL_DEADLINES = { queryTimeoutMs: 600_000, embedTimeoutMs: 3_600_000 } as const;

/**
 * An index over `store`, with the embedder (vector and hybrid search) and reranker if given, and
 * sentence vectors as `attachments.search.sentenceVectors` says.
 */
export function createIndex(
  store: Store,
  embedder: Embedder | undefined,
  reranker?: Reranker,
  minRerankScore?: number,
  sentenceVectors = false,
): AttachmentIndex {
  const options: AttachmentIndexOptions = {
    ...(embedder ? { embedder, ...EVAL_DEADLINES, sentenceVectors } : {}),
    ...(reranker ? { reranker } : {}),
    ...(minRerankScore === undefined ? {} : { minRerankScore }),
  };
  return new AttachmentIndex(store, options);
}

export function search(
  index: AttachmentIndex,
  owners: readonly Owner[],
  query: string,
  limit: number,
  mode: SearchMode,
): Promise<SearchHit[]> {
  if (!isSupported(mode)) throw new Error(`the attachment index has no ${mode} search`);
  if (mode === 'reranked') return index.search(owners, query, limit, { mode: 'hybrid' });
  return index.search(owners, query, limit, { mode, rerank: false });
}

/** The text of a hit that `search_attachment` puts before the model. */
export function passageOf(hit: SearchHit): string {
  return hit.passage;
}
