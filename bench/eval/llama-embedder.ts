// A real embedding model for the evaluation, run in-process by node-llama-cpp (CPU, prebuilt
// binary, a fixed number of threads) behind the project's Embedder interface. A text longer than
// the model's context is cut to it, as an embedding endpoint would truncate it.
import path from 'node:path';
import type { Embedder, EmbedOptions, EmbedPurpose } from '../../src/llm/embeddings/embedder.ts';

/** Text put before a query or a document, as `llm.embed.prefixes` gives it for the model's file. */
export type EmbedPrefixes = { [P in EmbedPurpose]?: string | undefined };

export interface LlamaEmbedder extends Embedder {
  readonly dims: number;
  readonly contextSize: number;
  dispose(): Promise<void>;
}

function unit(vector: readonly number[]): Float32Array {
  const v = Float32Array.from(vector);
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/** The file's name without .gguf: the key of its prefixes, as in embedded mode. */
export function modelName(modelPath: string): string {
  return path.basename(modelPath).replace(/\.gguf$/i, '');
}

export async function loadLlamaEmbedder(
  modelPath: string,
  threads = 2,
  prefixes: EmbedPrefixes = {},
): Promise<LlamaEmbedder> {
  const lib = await import('node-llama-cpp');
  const llama = await lib.getLlama({
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    maxThreads: threads,
    logLevel: lib.LlamaLogLevel.error,
  });
  try {
    const model = await llama.loadModel({ modelPath });
    const contextSize = model.trainContextSize;
    // A non-causal model reads its whole input in one batch: the batch is the context.
    const context = await model.createEmbeddingContext({
      contextSize,
      batchSize: contextSize,
      threads,
    });
    // Room for the begin and end tokens the context adds, and one to spare (it wants input < size).
    const maxTokens = contextSize - 3;
    const embedOne = async (text: string) => {
      const tokens = model.tokenize(text);
      const input = tokens.length > maxTokens ? tokens.slice(0, maxTokens) : text;
      return unit((await context.getEmbeddingFor(input)).vector);
    };
    const dims = (await embedOne('dimension probe')).length;
    return {
      id: `llama:${modelName(modelPath)}:${dims}${prefixes.document ? `|${prefixes.document}` : ''}`,
      dims,
      contextSize,
      async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
        const out: Float32Array[] = [];
        for (const t of texts) {
          opts.signal?.throwIfAborted();
          out.push(await embedOne((prefixes[opts.purpose] ?? '') + t));
        }
        return out;
      },
      async dispose() {
        await context.dispose();
        await model.dispose();
        await llama.dispose();
      },
    };
  } catch (err) {
    await llama.dispose();
    throw err;
  }
}
