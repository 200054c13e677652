// The embedder retrieval uses, from the config: none (search by words only), an OpenAI-compatible
// server, or the embedded embedding model on its own loopback server. Embeddings are never needed
// for an answer, so an embedded model that cannot start is logged and the bot runs without it.
import { availableParallelism } from 'node:os';
import { embedEndpointOf } from '../config/embed-settings.ts';
import type { Config } from '../config/schema.ts';
import { type EmbeddedEmbeddings, startEmbeddedEmbeddings } from '../llm/embedded/index.ts';
import { HttpEmbedder } from '../llm/embeddings/http-embedder.ts';
import type { Logger } from '../log/logger.ts';
import { sideTarget } from './side-target.ts';

/**
 * CPU threads of the embedded embedding model: as configured, else every core, or half of them
 * beside an embedded text model (spinning threads of two models on the same cores wait on each
 * other).
 */
export function embedThreads(configured: number, textEmbedded: boolean, cores: number): number {
  if (configured > 0) return configured;
  return textEmbedded ? Math.max(1, Math.floor(cores / 2)) : cores;
}

/** With LLM_EMBED_BASE_URL=embedded: loads the embedding model and serves it on loopback. */
export async function startEmbeddingModel(
  config: Config,
  log: Logger,
  o: { textEmbedded: boolean; cores?: number },
): Promise<EmbeddedEmbeddings | undefined> {
  const endpoint = embedEndpointOf(config.llm.embed);
  if (endpoint.kind !== 'embedded') return undefined;
  const { local, embed } = config.llm;
  const threads = embedThreads(embed.threads, o.textEmbedded, o.cores ?? availableParallelism());
  try {
    return await startEmbeddedEmbeddings({
      model: endpoint.model,
      dataDir: config.dataDir,
      threads,
      contextSize: config.llm.embed.contextSize,
      log,
      ...(local.downloadEndpoint ? { endpoints: { huggingFace: local.downloadEndpoint } } : {}),
    });
  } catch (err) {
    log.error(
      { err },
      'the embedded embedding model could not be started; files and knowledge are searched by words only (set LLM_EMBED_MODEL to a .gguf file, or LLM_EMBED_BASE_URL to a server)',
    );
    return undefined;
  }
}

export interface CreateEmbedderOptions {
  /** The embedded embedding model, when LLM_EMBED_BASE_URL=embedded and it started. */
  embedded?: EmbeddedEmbeddings | undefined;
  fetch?: typeof fetch;
}

/** The embedder, or undefined: no endpoint, and retrieval searches by words only. */
export function createEmbedder(
  config: Config,
  log: Logger,
  o: CreateEmbedderOptions = {},
): HttpEmbedder | undefined {
  const settings = config.llm.embed;
  const endpoint = embedEndpointOf(settings);
  const common = {
    batchSize: settings.batchSize,
    concurrency: settings.concurrency,
    timeoutMs: settings.timeoutMs,
    prefixes: settings.prefixes,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  };
  const target = sideTarget(endpoint, o.embedded, config.secrets.llmApiKey, log, {
    none: 'no embeddings endpoint (LLM_EMBED_BASE_URL): files and knowledge are searched by words only',
    remote: 'embeddings endpoint',
  });
  return target && new HttpEmbedder({ ...common, ...target });
}
