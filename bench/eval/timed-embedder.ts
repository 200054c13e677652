// Wraps the evaluation's embedder to time it, so a search's figures keep the query embedding apart
// from the search itself, and ingest can say how much of its time went to passage embeddings.
import type { Embedder, EmbedOptions } from '../../src/llm/embeddings/embedder.ts';

export class TimedEmbedder implements Embedder {
  readonly id: string;
  private readonly inner: Embedder;
  /** Milliseconds spent on `query` embeddings since the last `takeQueryMs`. */
  private queryMs = 0;
  documentMs = 0;
  documentTexts = 0;

  constructor(inner: Embedder) {
    this.inner = inner;
    this.id = inner.id;
  }

  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    const started = performance.now();
    try {
      return await this.inner.embed(texts, opts);
    } finally {
      const ms = performance.now() - started;
      if (opts.purpose === 'query') this.queryMs += ms;
      else {
        this.documentMs += ms;
        this.documentTexts += texts.length;
      }
    }
  }

  /** The query embedding time gathered so far, resetting it. */
  takeQueryMs(): number {
    const ms = this.queryMs;
    this.queryMs = 0;
    return ms;
  }
}
