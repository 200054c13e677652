// The reranker: none (a warning naming how to turn it on, since search then keeps its first-stage
// order and cannot tell a question the files do not answer from one they answer in other words),
// or a server that must list the model and score one pair. Without a reranker every answer still
// comes, so nothing here is ✗.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { rerankEndpointOf } from '../config/rerank-settings.ts';
import type { Config } from '../config/schema.ts';
import { fetchModels } from '../llm/model-info.ts';
import { HttpReranker } from '../llm/rerank/http-reranker.ts';
import { RerankError } from '../llm/rerank/rerank-error.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';

const NAME = 'llm_rerank';

export const RERANK_FIX =
  'Set LLM_RERANK_BASE_URL to an OpenAI-compatible server with /v1/rerank (vLLM serving a cross-encoder, e.g. vllm serve BAAI/bge-reranker-v2-m3), or LLM_RERANK_BASE_URL=embedded with LLM_RERANK_MODEL a reranker .gguf run in this process.';

function embeddedResult(model: string): CheckResult {
  const spec = model.trim();
  if (spec === '')
    return {
      name: NAME,
      status: 'warn',
      summary: 'LLM_RERANK_BASE_URL=embedded without LLM_RERANK_MODEL: search is not reranked',
      fix: 'Give LLM_RERANK_MODEL the path of a reranker .gguf (rank pooling) or an hf: URI.',
    };
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
    summary: `LLM_RERANK_MODEL names ${file}, which does not exist: search is not reranked`,
    fix: 'Give LLM_RERANK_MODEL the path of a reranker .gguf (rank pooling) or an hf: URI.',
  };
}

async function remoteResult(config: Config, ctx: CheckContext): Promise<CheckResult> {
  const { baseUrl, model } = config.llm.rerank;
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
      summary: `cannot list models at ${baseUrl}: ${reasonOf(err)}; search is not reranked until it answers`,
      fix: 'Check LLM_RERANK_BASE_URL (the server’s /v1 address), that the server is running and reachable from here, and LLM_API_KEY if it wants one.',
    };
  }
  if (model && !served.includes(model))
    return {
      name: NAME,
      status: 'warn',
      summary: `LLM_RERANK_MODEL=${model} is not served; ${baseUrl} lists ${served.join(', ') || 'no models'}`,
      fix: 'Set LLM_RERANK_MODEL to a served model id (or leave it empty for the first one).',
    };
  const reranker = new HttpReranker({
    baseUrl,
    model,
    apiKey,
    concurrency: 1,
    timeoutMs: ctx.stepTimeoutMs,
    fetch: fetchWithSignal,
  });
  try {
    await reranker.rerank('doctor probe', ['a passage to score'], { signal: ctx.signal });
  } catch (err) {
    const reason = RerankError.isRerankError(err) ? err.reason : 'unavailable';
    return {
      name: NAME,
      status: 'warn',
      summary: `POST ${baseUrl}/rerank failed (${reason}): ${reasonOf(err)}`,
      fix: 'Serve a cross-encoder there: vLLM serves /v1/rerank for one (e.g. vllm serve BAAI/bge-reranker-v2-m3).',
    };
  }
  return {
    name: NAME,
    status: 'ok',
    summary: `serves ${reranker.id}: passages below ${config.llm.rerank.minScore} count as not in the files`,
  };
}

export function rerankCheckGroup(config: Config): CheckGroup {
  return {
    names: [NAME],
    async run(ctx, report) {
      const endpoint = rerankEndpointOf(config.llm.rerank);
      if (endpoint.kind === 'none') {
        report({
          name: NAME,
          status: 'warn',
          summary:
            'no reranker: file search keeps its first-stage order, and a question the files do not answer may still get passages',
          fix: RERANK_FIX,
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
