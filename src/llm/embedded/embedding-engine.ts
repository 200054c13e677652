// The embedded embedding model: one GGUF loaded with one node-llama-cpp embedding context per
// thread, each evaluating its own text on one thread. The texts of the requests in hand are shared
// out among them, a short request's first (text-scheduler.ts). One context per thread rather than
// one context on all of them: node-llama-cpp evaluates a single sequence per embedding context (no
// batching of texts into one evaluation), and one text on two threads synchronises them at every
// operation, which a busy CPU turns into waiting (bench/embed-levers-bench.ts measures both). A
// text longer than the context is cut to fit, as retrieval wants a vector for every chunk rather
// than an error for the long ones.
import path from 'node:path';
import type { Llama, LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import { type LoadedSideModel, loadSideModel, type SideEngineOptions } from './side-engine.ts';
import { TextScheduler } from './text-scheduler.ts';

/** `contextSize`: tokens of one text; `threads`: contexts, each evaluating one text on one thread. */
export type EmbeddingEngineOptions = SideEngineOptions;

export interface EmbeddedVectors {
  /** One vector per text, unit length. */
  vectors: Float32Array[];
  /** Tokens evaluated, the model's own special tokens included. */
  tokens: number;
  /** How many texts were cut to fit the context. */
  truncated: number;
}

interface Embedded {
  vector: Float32Array;
  tokens: number;
  truncated: boolean;
}

// The model's own start and end tokens, and the one position llama.cpp keeps free.
const SPECIAL_ROOM = 3;

function unit(raw: readonly number[]): Float32Array {
  const v = Float32Array.from(raw);
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

export class EmbeddingEngine {
  readonly id: string;
  readonly contextSize: number;
  readonly dimensions: number;
  readonly threads: number;
  private readonly llama: Llama;
  private readonly model: LlamaModel;
  private readonly contexts: LlamaEmbeddingContext[];
  private readonly scheduler: TextScheduler<LlamaEmbeddingContext, Embedded>;

  private constructor(m: LoadedSideModel<LlamaEmbeddingContext[]>, o: EmbeddingEngineOptions) {
    this.llama = m.llama;
    this.model = m.model;
    this.contexts = m.context;
    this.id = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.contextSize = m.contextSize;
    this.dimensions = m.model.embeddingVectorSize;
    this.threads = o.threads;
    this.scheduler = new TextScheduler(this.contexts, (context, text) => this.one(context, text));
  }

  static async load(o: EmbeddingEngineOptions): Promise<EmbeddingEngine> {
    // A non-causal model reads a whole text in one batch: the batch is the context.
    const m = await loadSideModel(o, (model, opts) =>
      Promise.all(
        Array.from({ length: Math.max(1, o.threads) }, () =>
          model.createEmbeddingContext({ ...opts, threads: 1 }),
        ),
      ),
    );
    return new EmbeddingEngine(m, o);
  }

  /** Shares the contexts with the requests in hand; the signal is checked between texts. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddedVectors> {
    const each = await this.scheduler.run(texts, signal);
    return {
      vectors: each.map((e) => e.vector),
      tokens: each.reduce((n, e) => n + e.tokens, 0),
      truncated: each.filter((e) => e.truncated).length,
    };
  }

  async close(): Promise<void> {
    await this.scheduler.drained();
    for (const context of this.contexts) await context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  private async one(context: LlamaEmbeddingContext, text: string): Promise<Embedded> {
    const input = this.input(text);
    const embedding = await context.getEmbeddingFor(input.tokens);
    return {
      vector: unit(embedding.vector),
      tokens: context.calculateInputLength(input.tokens),
      truncated: input.truncated,
    };
  }

  /** The text's tokens, cut to the context; a text without any still gets a vector. */
  private input(text: string): { tokens: Token[]; truncated: boolean } {
    const room = this.contextSize - SPECIAL_ROOM;
    const tokens = this.model.tokenize(text);
    if (tokens.length > room) return { tokens: tokens.slice(0, room), truncated: true };
    if (tokens.length > 0) return { tokens, truncated: false };
    const bos = this.model.tokens.bos;
    return { tokens: bos !== null ? [bos] : this.model.tokenize('.'), truncated: false };
  }
}
