// The embeddings endpoint: none (a warning naming how to turn it on, since files and the knowledge
// graph are then searched by words only), or a server that must list the model and embed one text,
// whose dimension is reported. Without embeddings every answer still comes, so nothing here is ✗.
import { embedEndpointOf } from '../config/embed-settings.ts';
import type { Config } from '../config/schema.ts';
import { DEFAULT_EMBED_MODEL } from '../llm/embedded/model-file.ts';
import { EmbeddingError } from '../llm/embeddings/embedding-error.ts';
import { HttpEmbedder } from '../llm/embeddings/http-embedder.ts';
import type { CheckGroup } from '../model/check-result.ts';
import { sideEndpointCheckGroup } from './side-endpoint-check.ts';

export const EMBED_FIX =
  'Set LLM_EMBED_BASE_URL to an OpenAI-compatible server with /v1/embeddings (vLLM with --runner pooling, e.g. BAAI/bge-m3), or LLM_EMBED_BASE_URL=embedded to run a small multilingual embedding model in this process.';

export function embedCheckGroup(config: Config): CheckGroup {
  const { baseUrl, model, prefixes } = config.llm.embed;
  const apiKey = config.secrets.llmApiKey;
  return sideEndpointCheckGroup({
    name: 'llm_embed',
    env: 'LLM_EMBED',
    endpoint: embedEndpointOf(config.llm.embed),
    apiKey,
    degraded: 'search is by words only',
    none: {
      summary:
        'no embeddings endpoint: files and the knowledge graph are searched by words only, so a question asked in other words than the document’s may find nothing',
      fix: EMBED_FIX,
    },
    defaultModel: DEFAULT_EMBED_MODEL,
    modelFix:
      'Give LLM_EMBED_MODEL the path of a .gguf embedding model or an hf: URI (or leave it empty for the default).',
    probePath: 'embeddings',
    probeFix:
      'Serve an embedding model there: vLLM with --runner pooling (e.g. vllm serve BAAI/bge-m3 --runner pooling).',
    async probe(fetch, timeoutMs, signal) {
      const embedder = new HttpEmbedder({
        baseUrl,
        model,
        apiKey,
        batchSize: 1,
        concurrency: 1,
        timeoutMs,
        prefixes,
        fetch,
      });
      await embedder.ready(signal);
      return `serves ${embedder.model}: ${embedder.dimensions} dimensions`;
    },
    reasonOfFailure: (err) => (EmbeddingError.isEmbeddingError(err) ? err.reason : 'unavailable'),
  });
}
