// The attachment index: chunk → language → terms and vectors → per-owner hybrid search, stored
// through store.kv.
export {
  ATTACHMENT_INDEX_DEFAULTS,
  AttachmentIndex,
  type AttachmentIndexOptions,
  type NewAttachment,
} from './attachment-index.ts';
export {
  CHUNK_DEFAULTS,
  type Chunk,
  type ChunkOptions,
  chunkSections,
  joinSections,
  SECTION_SEPARATOR,
} from './chunk.ts';
export type { SearchMode, SearchOptions } from './hybrid-search.ts';
export { keys as attachmentKeys, ownerKey } from './owner-keys.ts';
export { RELEVANCE_DEFAULTS } from './relevance.ts';
export { type Token, tokenize, tokenizeWithOffsets } from './tokenize.ts';
