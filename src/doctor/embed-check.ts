// The embeddings endpoint: none (a warning naming how to turn it on, since files and the knowledge
// graph are then searched by words only), or a server that must list the model and embed one text,
// whose dimension is reported. Without embeddings every answer still comes, so nothing here is ✗.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { embedEndpointOf } from '../config/embed-settings.ts';
import type { Config } from '../config/schema.ts';
import { DEFAULT_EMBED_MODEL } from '../llm/embedded/model-file.ts';
import { EmbeddingError } from '../llm/embeddings/embedding-error.ts';
import { HttpEmbedder } from '../llm/embeddings/http-embedder.ts';
import { fetchModels } from '../llm/model-info.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';

const NAME = 'llm_embed';

export const EMBED_FIX =
  'Set LLM_EMBED_BASE_URL to an OpenAI-compatible server with /v1/embeddings (vLLM with --runner pooling, e.g. BAAI/bge-m3), or LLM_EMBED_BASE_URL=embedded to run a small multilingual embedding model in this process.';

function embeddedResult(model: string): CheckResult {
  const spec = model.trim() || DEFAULT_EMBED_MODEL;
  if (/^(hf|huggingface|https?):/i.test(spec))
    return {
      name: NAME,
      status: 'ok',
      summary: `embedded: ${spec}, downloaded once into dataDir/models and run by the bot on loopback`,
    };
  const file = path.resolve(spec);
  if (existsSync(file))
    return { name: NAME, status: 'ok', summary: `embedded: ${file}, run by the bot on loopback` };
  return {
    name: NAME,
    status: 'warn',
    summary: `LLM_EMBED_MODEL names ${file}, which does not exist: search is by words only`,
    fix: 'Give LLM_EMBED_MODEL the path of a .gguf embedding model or an hf: URI (or leave it empty for the default).',
  };
}

async function remoteResult(config: Config, ctx: CheckContext): Promise<CheckResult> {
  const { baseUrl, model } = config.llm.embed;
  const apiKey = config.secrets.llmApiKey;
  const fetchWithSignal: typeof fetch = (url, init) =>
    fetch(url, { ...init, signal: stepSignal(ctx) });
  let served: string[];
  try {
    served = (
      await fetchModels({ baseUrl, apiKey, timeoutMs: ctx.stepTimeoutMs, fetch: fetchWithSignal })
    ).map((m) => m.id);
  } catch (err) {
    return {
      name: NAME,
      status: 'warn',
      summary: `cannot list models at ${baseUrl}: ${reasonOf(err)}; search is by words only until it answers`,
      fix: 'Check LLM_EMBED_BASE_URL (the server’s /v1 address), that the server is running and reachable from here, and LLM_API_KEY if it wants one.',
    };
  }
  if (model && !served.includes(model))
    return {
      name: NAME,
      status: 'warn',
      summary: `LLM_EMBED_MODEL=${model} is not served; ${baseUrl} lists ${served.join(', ') || 'no models'}`,
      fix: 'Set LLM_EMBED_MODEL to a served model id (or leave it empty for the first one).',
    };
  const embedder = new HttpEmbedder({
    baseUrl,
    model,
    apiKey,
    batchSize: 1,
    concurrency: 1,
    timeoutMs: ctx.stepTimeoutMs,
    prefixes: config.llm.embed.prefixes,
    fetch: fetchWithSignal,
  });
  try {
    await embedder.ready(ctx.signal);
  } catch (err) {
    const reason = EmbeddingError.isEmbeddingError(err) ? err.reason : 'unavailable';
    return {
      name: NAME,
      status: 'warn',
      summary: `POST ${baseUrl}/embeddings failed (${reason}): ${reasonOf(err)}`,
      fix: 'Serve an embedding model there: vLLM with --runner pooling (e.g. vllm serve BAAI/bge-m3 --runner pooling).',
    };
  }
  return {
    name: NAME,
    status: 'ok',
    summary: `serves ${embedder.model}: ${embedder.dimensions} dimensions`,
  };
}

export function embedCheckGroup(config: Config): CheckGroup {
  return {
    names: [NAME],
    async run(ctx, report) {
      const endpoint = embedEndpointOf(config.llm.embed);
      if (endpoint.kind === 'none') {
        report({
          name: NAME,
          status: 'warn',
          summary:
            'no embeddings endpoint: files and the knowledge graph are searched by words only, so a question asked in other words than the document’s may find nothing',
          fix: EMBED_FIX,
        });
        return;
      }
      report(
        endpoint.kind === 'embedded'
          ? embeddedResult(endpoint.model)
          : await remoteResult(config, ctx),
      );
    },
  };
}
