// Starting and stopping the embedded models (chat, embeddings, ranking): resolve the file, load
// it, serve it on loopback.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { ModelDownloadEndpoints } from 'node-llama-cpp';
import type { Logger } from '../../log/logger.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { EmbeddedEngine } from './engine.ts';
import { DEFAULT_EMBED_MODEL, findLocalModel, resolveLocalModel } from './model-file.ts';
import { RankingEngine } from './ranking-engine.ts';
import { startEmbeddedServer } from './server.ts';

export { EmbeddingEngine } from './embedding-engine.ts';
export { EmbeddedSetupError } from './engine.ts';
export {
  DEFAULT_EMBED_MODEL,
  DEFAULT_LOCAL_MODEL,
  downloadHostProblem,
  findLocalModel,
  type LocalModelFile,
} from './model-file.ts';
export { RankingEngine } from './ranking-engine.ts';

export interface EmbeddedModelOptions {
  /** LLM_LOCAL_MODEL: a .gguf path or an hf: URI; empty: the default model. */
  model: string;
  dataDir: string;
  /** 0: one per core. */
  threads: number;
  contextSize: number;
  /** 0: any free port. */
  port: number;
  log: Logger;
  progress?: NodeJS.WritableStream & { isTTY?: boolean };
  endpoints?: ModelDownloadEndpoints;
}

export interface EmbeddedModel {
  /** The OpenAI-compatible base URL on loopback. */
  baseUrl: string;
  engine: EmbeddedEngine;
  /** The .gguf file loaded. */
  file: string;
  close(): Promise<void>;
}

/** llama.cpp's threads busy-wait: more threads than cores only slows everything down. */
export function threadsFor(configured: number, cores = availableParallelism()): number {
  return configured > 0 ? Math.min(configured, cores) : cores;
}

export async function startEmbeddedModel(o: EmbeddedModelOptions): Promise<EmbeddedModel> {
  const where = {
    spec: o.model,
    modelsDir: path.join(o.dataDir, 'models'),
    ...(o.endpoints ? { endpoints: o.endpoints } : {}),
  };
  const found = findLocalModel(where);
  if (found.kind === 'download')
    o.log.info(
      { model: found.spec, into: where.modelsDir },
      'the embedded model is not here yet: downloading it once (progress on stderr)',
    );
  const modelPath = await resolveLocalModel({ ...where, progress: o.progress ?? process.stderr });
  o.log.info({ file: modelPath }, 'loading the embedded model');
  const threads = threadsFor(o.threads);
  const engine = await EmbeddedEngine.load({ modelPath, contextSize: o.contextSize, threads });
  let server: Awaited<ReturnType<typeof startEmbeddedServer>>;
  try {
    server = await startEmbeddedServer({ engine, port: o.port, log: o.log });
  } catch (err) {
    await engine.close();
    throw err;
  }
  o.log.info(
    {
      model: engine.id,
      file: modelPath,
      max_model_len: engine.contextSize,
      threads,
      chat_template: engine.chatTemplate,
      base_url: server.baseUrl,
    },
    'embedded model serving',
  );
  return {
    baseUrl: server.baseUrl,
    engine,
    file: modelPath,
    async close() {
      await server.close();
      await engine.close();
    },
  };
}

/** How an embedded side model (embeddings, ranking) is found and run. */
export interface EmbeddedSideOptions {
  /** A .gguf path or an hf: URI (LLM_EMBED_MODEL: empty is the default embedding model). */
  model: string;
  dataDir: string;
  /** 0: one per core. */
  threads: number;
  contextSize: number;
  log: Logger;
  progress?: NodeJS.WritableStream & { isTTY?: boolean };
  endpoints?: ModelDownloadEndpoints;
}

export type EmbeddedEmbeddingsOptions = EmbeddedSideOptions;

export interface EmbeddedEmbeddings {
  /** The OpenAI-compatible base URL on loopback (serves /v1/embeddings). */
  baseUrl: string;
  engine: EmbeddingEngine;
  close(): Promise<void>;
}

/** The embedding model on its own loopback server (any free port), beside any chat model. */
export async function startEmbeddedEmbeddings(
  o: EmbeddedEmbeddingsOptions,
): Promise<EmbeddedEmbeddings> {
  const modelPath = await resolveLocalModel({
    spec: o.model,
    defaultSpec: DEFAULT_EMBED_MODEL,
    variable: 'LLM_EMBED_MODEL',
    modelsDir: path.join(o.dataDir, 'models'),
    progress: o.progress ?? process.stderr,
    ...(o.endpoints ? { endpoints: o.endpoints } : {}),
  });
  const threads = threadsFor(o.threads);
  const engine = await EmbeddingEngine.load({ modelPath, contextSize: o.contextSize, threads });
  return serveOnLoopback(
    engine,
    { embeddings: engine },
    o.log,
    'embedded embedding model serving',
    {
      file: modelPath,
      dimensions: engine.dimensions,
      threads,
    },
  );
}

/** `model`: LLM_RERANK_MODEL, a ranking model (rank pooling). */
export type EmbeddedRankingOptions = EmbeddedSideOptions;

export interface EmbeddedRanking {
  /** The OpenAI-compatible base URL on loopback (serves /v1/rerank). */
  baseUrl: string;
  engine: RankingEngine;
  close(): Promise<void>;
}

/** The ranking model on its own loopback server (any free port), beside the other models. */
export async function startEmbeddedRanking(o: EmbeddedRankingOptions): Promise<EmbeddedRanking> {
  if (o.model.trim() === '')
    throw new Error('LLM_RERANK_BASE_URL=embedded needs LLM_RERANK_MODEL (a reranker .gguf)');
  const modelPath = await resolveLocalModel({
    spec: o.model,
    variable: 'LLM_RERANK_MODEL',
    modelsDir: path.join(o.dataDir, 'models'),
    progress: o.progress ?? process.stderr,
    ...(o.endpoints ? { endpoints: o.endpoints } : {}),
  });
  const threads = threadsFor(o.threads);
  const engine = await RankingEngine.load({ modelPath, contextSize: o.contextSize, threads });
  return serveOnLoopback(engine, { ranking: engine }, o.log, 'embedded ranking model serving', {
    file: modelPath,
    threads,
  });
}

/** Puts a loaded side engine behind its own loopback server (any free port); logs where. */
async function serveOnLoopback<
  E extends { id: string; contextSize: number; close(): Promise<void> },
>(
  engine: E,
  routes: { embeddings: EmbeddingEngine } | { ranking: RankingEngine },
  log: Logger,
  message: string,
  fields: { file: string; dimensions?: number; threads: number },
): Promise<{ baseUrl: string; engine: E; close(): Promise<void> }> {
  let server: Awaited<ReturnType<typeof startEmbeddedServer>>;
  try {
    server = await startEmbeddedServer({ ...routes, port: 0, log });
  } catch (err) {
    await engine.close();
    throw err;
  }
  const { file, threads, ...more } = fields;
  log.info(
    {
      model: engine.id,
      file,
      ...more,
      max_model_len: engine.contextSize,
      threads,
      base_url: server.baseUrl,
    },
    message,
  );
  return {
    baseUrl: server.baseUrl,
    engine,
    async close() {
      await server.close();
      await engine.close();
    },
  };
}
