// What retrieval needs from a cross-encoder: a relevance score for each (query, passage) pair.
// Unlike a cosine, which compares two vectors made apart, a cross-encoder reads the question and
// the passage together, so its score both orders candidates better and means the same from one
// question to the next (a probability, 0–1): it is what decides "not in the files" when one is set.

export interface RerankOptions {
  signal?: AbortSignal;
}

export interface Reranker {
  /** Names the model: relevance floors are set per model. */
  readonly id: string;
  /**
   * One score per document, in the documents' order, each 0–1 (higher: more relevant). Throws a
   * `RerankError` when the endpoint is down, too slow or answers wrongly; callers then keep the
   * order they had.
   */
  rerank(query: string, documents: readonly string[], opts?: RerankOptions): Promise<number[]>;
}
