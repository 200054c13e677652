// The embedded embedding model: one GGUF loaded with one node-llama-cpp embedding context per
// thread, each evaluating its own text on one thread. A request's texts are shared out among them;
// requests run one at a time in arrival order. One context per thread rather than one context on
// all of them: node-llama-cpp evaluates a single sequence per embedding context (no batching of
// texts into one evaluation), and one text on two threads synchronises them at every operation,
// which a busy CPU turns into waiting (bench/embed-levers-bench.ts measures both). A text longer
// than the context is cut to fit, as retrieval wants a vector for every chunk rather than an error
// for the long ones.
import path from 'node:path';
import type { Llama, LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import {
  type LoadedSideModel,
  loadSideModel,
  SerialQueue,
  type SideEngineOptions,
} from './side-engine.ts';

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
  private readonly queue = new SerialQueue();

  private constructor(m: LoadedSideModel<LlamaEmbeddingContext[]>, o: EmbeddingEngineOptions) {
    this.llama = m.llama;
    this.model = m.model;
    this.contexts = m.context;
    this.id = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.contextSize = m.contextSize;
    this.dimensions = m.model.embeddingVectorSize;
    this.threads = o.threads;
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

  /** Queued behind the requests before it; the signal is checked between texts. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddedVectors> {
    return this.queue.run(() => this.run(texts, signal));
  }

  async close(): Promise<void> {
    await this.queue.drained();
    for (const context of this.contexts) await context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  private async run(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddedVectors> {
    const vectors: Float32Array[] = new Array(texts.length);
    let tokens = 0;
    let truncated = 0;
    let next = 0;
    // Each context takes the next text when it is free, so a long text does not hold up the rest.
    const work = async (context: LlamaEmbeddingContext) => {
      try {
        while (next < texts.length) {
          signal?.throwIfAborted();
          const i = next++;
          const input = this.input(texts[i] ?? '');
          if (input.truncated) truncated++;
          const embedding = await context.getEmbeddingFor(input.tokens);
          tokens += context.calculateInputLength(input.tokens);
          vectors[i] = unit(embedding.vector);
        }
      } catch (err) {
        next = texts.length; // the request has failed: the other contexts take nothing more
        throw err;
      }
    };
    await Promise.all(this.contexts.map(work));
    return { vectors, tokens, truncated };
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
