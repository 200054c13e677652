// A real cross-encoder for the evaluation: a ranking GGUF run in-process by the project's own
// embedded ranking engine (node-llama-cpp's ranking context, CPU, a fixed number of threads),
// behind the Reranker interface the attachment index uses.
import { RankingEngine } from '../../src/llm/embedded/ranking-engine.ts';
import type { Reranker, RerankOptions } from '../../src/llm/rerank/reranker.ts';

export interface LlamaReranker extends Reranker {
  dispose(): Promise<void>;
}

export async function loadLlamaReranker(modelPath: string, threads = 1): Promise<LlamaReranker> {
  const engine = await RankingEngine.load({ modelPath, contextSize: 512, threads });
  return {
    id: `llama:${engine.id}`,
    async rerank(query: string, documents: readonly string[], opts: RerankOptions = {}) {
      return (await engine.rank(query, documents, opts.signal)).scores;
    },
    dispose: () => engine.close(),
  };
}
