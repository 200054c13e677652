// Starting and stopping the embedded model: resolve the file, load it, serve it on loopback.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { ModelDownloadEndpoints } from 'node-llama-cpp';
import type { Logger } from '../../log/logger.ts';
import { EmbeddedEngine } from './engine.ts';
import { resolveLocalModel } from './model-file.ts';
import { startEmbeddedServer } from './server.ts';

export { EmbeddedSetupError } from './engine.ts';
export { DEFAULT_LOCAL_MODEL } from './model-file.ts';

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
  close(): Promise<void>;
}

/** llama.cpp's threads busy-wait: more threads than cores only slows everything down. */
export function threadsFor(configured: number, cores = availableParallelism()): number {
  return configured > 0 ? Math.min(configured, cores) : cores;
}

export async function startEmbeddedModel(o: EmbeddedModelOptions): Promise<EmbeddedModel> {
  const modelPath = await resolveLocalModel({
    spec: o.model,
    modelsDir: path.join(o.dataDir, 'models'),
    progress: o.progress ?? process.stderr,
    ...(o.endpoints ? { endpoints: o.endpoints } : {}),
  });
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
    async close() {
      await server.close();
      await engine.close();
    },
  };
}
