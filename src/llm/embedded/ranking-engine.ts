// The embedded reranker: a cross-encoder GGUF (rank pooling, e.g. bge-reranker-v2-m3) loaded
// with node-llama-cpp's ranking context. Requests are served one at a time in arrival order, as
// the embedding engine's are. A document longer than the context is scored by its best-scoring
// window (node-llama-cpp's "maxChunk"), so a long passage is never refused.
import path from 'node:path';
import type { Llama, LlamaModel, LlamaRankingContext } from 'node-llama-cpp';
import { cpuLlama } from './engine.ts';

export interface RankingEngineOptions {
  modelPath: string;
  /** Tokens of one (query, document) pair; capped at the model's training context. */
  contextSize: number;
  /** CPU threads for evaluation (never more than the cores). */
  threads: number;
}

export interface RankedScores {
  /** One score per document, 0–1, in the documents' order. */
  scores: number[];
  /** Tokens of the query and the documents, as the model reads them. */
  tokens: number;
}

/** What the rerank route needs of a ranking model. */
export interface RankingModel {
  readonly id: string;
  readonly contextSize: number;
  rank(query: string, documents: readonly string[], signal?: AbortSignal): Promise<RankedScores>;
}

export class RankingEngine implements RankingModel {
  readonly id: string;
  readonly contextSize: number;
  readonly threads: number;
  private readonly llama: Llama;
  private readonly model: LlamaModel;
  private readonly context: LlamaRankingContext;
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    llama: Llama,
    model: LlamaModel,
    context: LlamaRankingContext,
    o: RankingEngineOptions,
  ) {
    this.llama = llama;
    this.model = model;
    this.context = context;
    this.id = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.contextSize = context.contextSize;
    this.threads = o.threads;
  }

  static async load(o: RankingEngineOptions): Promise<RankingEngine> {
    const llama = await cpuLlama(o.threads);
    try {
      const model = await llama.loadModel({ modelPath: o.modelPath });
      const contextSize = Math.min(o.contextSize, model.trainContextSize);
      // A cross-encoder reads the pair in one batch: the batch is the context.
      const context = await model.createRankingContext({
        contextSize,
        batchSize: contextSize,
        threads: o.threads,
      });
      return new RankingEngine(llama, model, context, o);
    } catch (err) {
      await llama.dispose();
      throw err;
    }
  }

  /** Queued behind the requests before it; the signal is checked between documents. */
  rank(query: string, documents: readonly string[], signal?: AbortSignal): Promise<RankedScores> {
    const run = this.tail.then(() => this.run(query, documents, signal));
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async close(): Promise<void> {
    await this.tail;
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  private async run(
    query: string,
    documents: readonly string[],
    signal?: AbortSignal,
  ): Promise<RankedScores> {
    const scores: number[] = [];
    let tokens = this.model.tokenize(query).length;
    for (const doc of documents) {
      signal?.throwIfAborted();
      scores.push(await this.context.rank(query, doc, { onOverflow: 'maxChunk' }));
      tokens += this.model.tokenize(doc).length;
    }
    return { scores, tokens };
  }
}
