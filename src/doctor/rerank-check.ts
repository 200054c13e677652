// The reranker: none (a warning naming how to turn it on, since search then keeps its first-stage
// order and cannot tell a question the files do not answer from one they answer in other words),
// or a server that must list the model and score one pair. Without a reranker every answer still
// comes, so nothing here is ✗.
import { rerankEndpointOf } from '../config/rerank-settings.ts';
import type { Config } from '../config/schema.ts';
import { HttpReranker } from '../llm/rerank/http-reranker.ts';
import { RerankError } from '../llm/rerank/rerank-error.ts';
import type { CheckGroup } from '../model/check-result.ts';
import { sideEndpointCheckGroup } from './side-endpoint-check.ts';

export const RERANK_FIX =
  'Set LLM_RERANK_BASE_URL to an OpenAI-compatible server with /v1/rerank (vLLM serving a cross-encoder, e.g. vllm serve BAAI/bge-reranker-v2-m3), or LLM_RERANK_BASE_URL=embedded with LLM_RERANK_MODEL a reranker .gguf run in this process.';

export function rerankCheckGroup(config: Config): CheckGroup {
  const { baseUrl, model, minScore } = config.llm.rerank;
  const apiKey = config.secrets.llmApiKey;
  return sideEndpointCheckGroup({
    name: 'llm_rerank',
    env: 'LLM_RERANK',
    endpoint: rerankEndpointOf(config.llm.rerank),
    apiKey,
    degraded: 'search is not reranked',
    none: {
      summary:
        'no reranker: file search keeps its first-stage order, and a question the files do not answer may still get passages',
      fix: RERANK_FIX,
    },
    modelFix: 'Give LLM_RERANK_MODEL the path of a reranker .gguf (rank pooling) or an hf: URI.',
    probePath: 'rerank',
    probeFix:
      'Serve a cross-encoder there: vLLM serves /v1/rerank for one (e.g. vllm serve BAAI/bge-reranker-v2-m3).',
    async probe(fetch, timeoutMs, signal) {
      const reranker = new HttpReranker({
        baseUrl,
        model,
        apiKey,
        concurrency: 1,
        timeoutMs,
        fetch,
      });
      await reranker.rerank('doctor probe', ['a passage to score'], { signal });
      return `serves ${reranker.id}: passages below ${minScore} count as not in the files`;
    },
    reasonOfFailure: (err) => (RerankError.isRerankError(err) ? err.reason : 'unavailable'),
  });
}
