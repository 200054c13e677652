// The embedded reranker: a cross-encoder GGUF (rank pooling, e.g. bge-reranker-v2-m3) loaded
// with node-llama-cpp's ranking context. Requests are served one at a time in arrival order, as
// the embedding engine's are. A document longer than the context is scored by its best-scoring
// window (node-llama-cpp's "maxChunk"), so a long passage is never refused.
import path from 'node:path';
import type { Llama, LlamaModel, LlamaRankingContext } from 'node-llama-cpp';
import {
  type LoadedSideModel,
  loadSideModel,
  SerialQueue,
  type SideEngineOptions,
} from './side-engine.ts';

/** `contextSize`: tokens of one (query, document) pair. */
export type RankingEngineOptions = SideEngineOptions;

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
  private readonly queue = new SerialQueue();

  private constructor(m: LoadedSideModel<LlamaRankingContext>, o: RankingEngineOptions) {
    this.llama = m.llama;
    this.model = m.model;
    this.context = m.context;
    this.id = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.contextSize = m.context.contextSize;
    this.threads = o.threads;
  }

  static async load(o: RankingEngineOptions): Promise<RankingEngine> {
    // A cross-encoder reads the pair in one batch: the batch is the context.
    const m = await loadSideModel(o, (model, opts) => model.createRankingContext(opts));
    return new RankingEngine(m, o);
  }

  /** Queued behind the requests before it; the signal is checked between documents. */
  rank(query: string, documents: readonly string[], signal?: AbortSignal): Promise<RankedScores> {
    return this.queue.run(() => this.run(query, documents, signal));
  }

  async close(): Promise<void> {
    await this.queue.drained();
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
