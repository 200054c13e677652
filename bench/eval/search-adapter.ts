// The evaluation's only contact with the attachment index: build one (with the embedder, once the
// index takes one), search it in a given mode, and read the text a hit shows the model. Everything
// else in the runner is independent of how search is implemented, so the same labels score lexical,
// vector and hybrid search alike.
import {
  AttachmentIndex,
  type AttachmentIndexOptions,
} from '../../src/attachments/index/attachment-index.ts';
import type { SearchHit } from '../../src/attachments/types.ts';
import type { Embedder } from '../../src/llm/embeddings/embedder.ts';
import type { Owner } from '../../src/model/thread-ref.ts';
import type { Store } from '../../src/store/store.ts';

export const SEARCH_MODES = ['lexical', 'vector', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The modes `AttachmentIndex.search(owners, query, limit, { mode })` supports. */
export const SUPPORTED_MODES: readonly SearchMode[] = SEARCH_MODES;

export function isSupported(mode: SearchMode): boolean {
  return SUPPORTED_MODES.includes(mode);
}

export function needsEmbedder(modes: readonly SearchMode[]): boolean {
  return modes.some((m) => m !== 'lexical' && isSupported(m));
}

/** An index over `store`, with the embedder when there is one (vector and hybrid search). */
export function createIndex(store: Store, embedder: Embedder | undefined): AttachmentIndex {
  const options: AttachmentIndexOptions = embedder ? { embedder } : {};
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
  return index.search(owners, query, limit, { mode });
}

/** The text of a hit that `search_attachment` puts before the model. */
export function passageOf(hit: SearchHit): string {
  return hit.passage;
}
