// What retrieval needs from an embedding model. One implementation talks to an OpenAI-compatible
// `/v1/embeddings` endpoint (vLLM with `--runner pooling`, or the embedded engine on loopback);
// tests may hand in any other.

/** Whether a text is a search query or a passage to be found: some models embed them differently. */
export type EmbedPurpose = 'query' | 'document';

export interface EmbedOptions {
  purpose: EmbedPurpose;
  signal?: AbortSignal;
}

export interface Embedder {
  /**
   * Names the model and its output: vectors made under two different ids are never compared
   * (a stored vector whose id is not the current one is stale and embedded again).
   */
  readonly id: string;
  /**
   * One unit-length vector per text, in order. Throws an `EmbeddingError` when the endpoint is
   * down, too slow, or answers with the wrong count or dimension; callers fall back to lexical
   * search then.
   */
  embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]>;
  /**
   * The length of every vector, once known (an HTTP embedder learns it from its first answer,
   * e.g. to create a vector index of that size).
   */
  readonly dimensions?: number | undefined;
  /**
   * Learns what `id` and `dimensions` depend on (one short request if need be) and returns the
   * final `id`. An embedder that knows them from the start need not have it.
   */
  ready?(signal?: AbortSignal): Promise<string>;
}
