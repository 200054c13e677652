// The reranker retrieval uses, from the config: none (the fused order and the first-stage floors),
// an OpenAI/vLLM-style rerank server, or the embedded ranking model on its own loopback server. A
// reranker is never needed for an answer, so an embedded model that cannot start is logged and the
// bot runs without it.
import { availableParallelism } from 'node:os';
import { rerankEndpointOf } from '../config/rerank-settings.ts';
import type { Config } from '../config/schema.ts';
import { type EmbeddedRanking, startEmbeddedRanking } from '../llm/embedded/index.ts';
import { HttpReranker } from '../llm/rerank/http-reranker.ts';
import type { Logger } from '../log/logger.ts';
import { embedThreads } from './create-embedder.ts';
import { sideTarget } from './side-target.ts';

/** With LLM_RERANK_BASE_URL=embedded: loads the ranking model and serves it on loopback. */
export async function startRankingModel(
  config: Config,
  log: Logger,
  o: { textEmbedded: boolean; cores?: number },
): Promise<EmbeddedRanking | undefined> {
  const endpoint = rerankEndpointOf(config.llm.rerank);
  if (endpoint.kind !== 'embedded') return undefined;
  const { local, rerank } = config.llm;
  const configured = rerank.threads || config.llm.embed.threads;
  const threads = embedThreads(configured, o.textEmbedded, o.cores ?? availableParallelism());
  try {
    return await startEmbeddedRanking({
      model: endpoint.model,
      dataDir: config.dataDir,
      threads,
      contextSize: rerank.contextSize,
      log,
      ...(local.downloadEndpoint ? { endpoints: { huggingFace: local.downloadEndpoint } } : {}),
    });
  } catch (err) {
    log.error(
      { err },
      'the embedded ranking model could not be started; search keeps its first-stage order (set LLM_RERANK_MODEL to a reranker .gguf, or LLM_RERANK_BASE_URL to a server)',
    );
    return undefined;
  }
}

export interface CreateRerankerOptions {
  /** The embedded ranking model, when LLM_RERANK_BASE_URL=embedded and it started. */
  embedded?: EmbeddedRanking | undefined;
  fetch?: typeof fetch;
}

/** The reranker, or undefined: no endpoint, and search keeps its fused order. */
export function createReranker(
  config: Config,
  log: Logger,
  o: CreateRerankerOptions = {},
): HttpReranker | undefined {
  const settings = config.llm.rerank;
  const endpoint = rerankEndpointOf(settings);
  const common = {
    timeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  };
  const target = sideTarget(endpoint, o.embedded, config.secrets.llmApiKey, log, {
    none: 'no rerank endpoint (LLM_RERANK_BASE_URL): search keeps its first-stage order',
    remote: 'rerank endpoint',
  });
  return target && new HttpReranker({ ...common, ...target });
}
