import type { Config } from '../config/schema.ts';
import { type EmbeddedModel, startEmbeddedModel } from '../llm/embedded/index.ts';
import { answersAt } from '../llm/embedded/probe.ts';
import type { Logger } from '../log/logger.ts';

export interface TextModel {
  /** The OpenAI-compatible base URL the bot talks to. */
  baseUrl: string;
  /** Set when the model runs in-process (behind its own loopback server). */
  embedded: EmbeddedModel | undefined;
}

/**
 * The configured server; or, with `LLM_TEXT_BASE_URL=embedded`, the embedded model; or, when
 * nothing was configured, the default address if a server answers there within the probe's time,
 * else the embedded model.
 */
export async function createTextModel(config: Config, log: Logger): Promise<TextModel> {
  const { text, local } = config.llm;
  if (config.textModel === 'remote') return { baseUrl: text.baseUrl, embedded: undefined };
  if (config.textModel === 'probe') {
    if (await answersAt(text.baseUrl, local.probeTimeoutMs)) {
      log.info({ base_url: text.baseUrl }, 'a model server answers at the default address');
      return { baseUrl: text.baseUrl, embedded: undefined };
    }
    log.info(
      { base_url: text.baseUrl },
      'no model server answers at the default address; starting the embedded model',
    );
  }
  const embedded = await startEmbeddedModel({
    model: local.model,
    dataDir: config.dataDir,
    threads: local.threads,
    contextSize: local.contextSize,
    port: local.port,
    log,
  });
  return { baseUrl: embedded.baseUrl, embedded };
}
