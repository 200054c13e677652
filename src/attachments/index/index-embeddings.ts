// The index's side of the Embedder: chunk vectors at ingest and query vectors at search, each
// falling back to words (undefined) on any failure, logged at most once a minute per kind of work.
// One Semaphore bounds the embedding calls of ingest and re-embedding across the process; a query
// does not wait behind them.
import { LRUCache } from 'lru-cache';
import type { Embedder } from '../../llm/embeddings/embedder.ts';
import type { EmbeddingFallbackLog } from '../../llm/embeddings/embedding-fallback.ts';
import { Semaphore } from '../../util/semaphore.ts';
import type { Chunk } from './chunk.ts';
import { chunkVectors, type EmbedLimits, embedBatch } from './embed-texts.ts';
import type { QueryVector } from './hybrid-search.ts';
import { type ChunkVectors, normalised } from './vectors.ts';

export class IndexEmbeddings {
  readonly embedder: Embedder;
  readonly limits: EmbedLimits;
  readonly gate: Semaphore;
  /** Whether files get sentence vectors beside their chunk vectors (sentence-vectors.ts). */
  readonly sentences: boolean;
  private readonly fallback: EmbeddingFallbackLog;
  private readonly queryTimeoutMs: number;
  /** Recent queries' vectors: a question asked again, or searched in several modes, costs nothing. */
  private readonly queries = new LRUCache<string, Float32Array>({ max: 256 });

  constructor(
    embedder: Embedder,
    limits: EmbedLimits,
    queryTimeoutMs: number,
    fallback: EmbeddingFallbackLog,
    sentences = false,
  ) {
    this.embedder = embedder;
    this.sentences = sentences;
    this.limits = limits;
    this.gate = new Semaphore(Math.max(1, Math.floor(limits.concurrency)));
    this.queryTimeoutMs = queryTimeoutMs;
    this.fallback = fallback;
  }

  /** Logs that a search fell back to words for a reason found outside the embedder call. */
  fellBack(err: Error): void {
    this.fallback.fellBack('attachment search', err);
  }

  /** Logs a failed re-embedding (the file stays searchable by words). */
  reembedFailed(err: unknown): void {
    this.fallback.fellBack('attachment re-embedding', err);
  }

  /** One file's chunk vectors, or undefined when embedding failed (the file is kept by words). */
  async chunks(chunks: readonly Chunk[]): Promise<ChunkVectors | undefined> {
    try {
      return await chunkVectors(this.embedder, chunks, this.limits, this.gate, this.sentences);
    } catch (err) {
      this.fallback.fellBack('attachment ingest', err);
      return undefined;
    }
  }

  /** The query's unit vector and the embedder id that made it; undefined when that failed. */
  async query(text: string): Promise<QueryVector | undefined> {
    const cached = this.queries.get(`${this.embedder.id}\n${text}`);
    if (cached) return { model: this.embedder.id, vector: cached };
    try {
      const [v] = await embedBatch(this.embedder, [text], 'query', this.queryTimeoutMs);
      // The id after the answer: an embedder that learns its model from it is final by now.
      const model = this.embedder.id;
      const vector = normalised(v as Float32Array);
      this.queries.set(`${model}\n${text}`, vector);
      return { model, vector };
    } catch (err) {
      this.fallback.fellBack('attachment search', err);
      return undefined;
    }
  }
}
