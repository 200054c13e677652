// An Embedder on node-llama-cpp's embedding context, for benchmarks and calibration only: the
// product reaches its model through the embeddings endpoint. CPU, at most `threads` threads; a
// text longer than the model's context is cut to it, as an embeddings server would.
import path from 'node:path';
import type { Embedder, EmbedOptions } from '../src/llm/embeddings/embedder.ts';

export interface LlamaEmbedder extends Embedder {
  dispose(): Promise<void>;
}

export async function loadLlamaEmbedder(modelPath: string, threads = 2): Promise<LlamaEmbedder> {
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
  const model = await llama.loadModel({ modelPath });
  const context = await model.createEmbeddingContext({ threads });
  const max = Math.min(model.trainContextSize, context.model.trainContextSize);
  return {
    id: path.basename(modelPath).replace(/\.gguf$/i, ''),
    async embed(texts: readonly string[], _opts: EmbedOptions): Promise<Float32Array[]> {
      const out: Float32Array[] = [];
      for (const text of texts) {
        const tokens = model.tokenize(text);
        const cut = tokens.length > max - 2 ? tokens.slice(0, max - 2) : tokens;
        const e = await context.getEmbeddingFor(cut);
        out.push(Float32Array.from(e.vector));
      }
      return out;
    },
    async dispose() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

/** The CI embedding model, when BENCH_EMBED_MODEL or TEST_EMBED_MODEL names its GGUF file. */
export function benchEmbedModelPath(): string | undefined {
  return process.env.BENCH_EMBED_MODEL || process.env.TEST_EMBED_MODEL || undefined;
}
