// The embedded embedding model: one GGUF loaded with node-llama-cpp's embedding context, texts
// embedded one at a time in arrival order (llama.cpp threads spin: one evaluation at a time is
// what the cores can do anyway). A text longer than the context is cut to fit, as retrieval wants
// a vector for every chunk rather than an error for the long ones.
import path from 'node:path';
import type { Llama, LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import {
  type LoadedSideModel,
  loadSideModel,
  SerialQueue,
  type SideEngineOptions,
} from './side-engine.ts';

/** `contextSize`: tokens of one text. */
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
  private readonly context: LlamaEmbeddingContext;
  private readonly queue = new SerialQueue();

  private constructor(m: LoadedSideModel<LlamaEmbeddingContext>, o: EmbeddingEngineOptions) {
    this.llama = m.llama;
    this.model = m.model;
    this.context = m.context;
    this.id = path.basename(o.modelPath).replace(/\.gguf$/i, '');
    this.contextSize = m.contextSize;
    this.dimensions = m.model.embeddingVectorSize;
    this.threads = o.threads;
  }

  static async load(o: EmbeddingEngineOptions): Promise<EmbeddingEngine> {
    // A non-causal model reads a whole text in one batch: the batch is the context.
    const m = await loadSideModel(o, (model, opts) => model.createEmbeddingContext(opts));
    return new EmbeddingEngine(m, o);
  }

  /** Queued behind the requests before it; the signal is checked between texts. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddedVectors> {
    return this.queue.run(() => this.run(texts, signal));
  }

  async close(): Promise<void> {
    await this.queue.drained();
    await this.context.dispose();
    await this.model.dispose();
    await this.llama.dispose();
  }

  private async run(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddedVectors> {
    const vectors: Float32Array[] = [];
    let tokens = 0;
    let truncated = 0;
    const room = this.contextSize - SPECIAL_ROOM;
    for (const text of texts) {
      signal?.throwIfAborted();
      let input: Token[] = this.model.tokenize(text);
      if (input.length > room) {
        input = input.slice(0, room);
        truncated++;
      }
      // A text without tokens still gets a vector (of the start token, or of a full stop).
      if (input.length === 0) {
        const bos = this.model.tokens.bos;
        input = bos !== null ? [bos] : this.model.tokenize('.');
      }
      const embedding = await this.context.getEmbeddingFor(input);
      tokens += this.context.calculateInputLength(input);
      vectors.push(unit(embedding.vector));
    }
    return { vectors, tokens, truncated };
  }
}
