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
  const start = () =>
    startEmbeddedModel({
      model: local.model,
      dataDir: config.dataDir,
      threads: local.threads,
      contextSize: local.contextSize,
      port: local.port,
      log,
      ...(local.downloadEndpoint ? { endpoints: { huggingFace: local.downloadEndpoint } } : {}),
    });
  if (config.textModel === 'embedded') {
    const embedded = await start();
    return { baseUrl: embedded.baseUrl, embedded };
  }
  try {
    const embedded = await start();
    return { baseUrl: embedded.baseUrl, embedded };
  } catch (err) {
    // Nothing was configured and the default model cannot be had (offline, no space): the bot
    // still starts, so the web chat and the doctor can say what is missing, and turns report the
    // model as unreachable until a server answers at the default address.
    log.error(
      { err, base_url: text.baseUrl },
      'the embedded model could not be started; set LLM_TEXT_BASE_URL to a model server or LLM_LOCAL_MODEL to a .gguf file',
    );
    return { baseUrl: text.baseUrl, embedded: undefined };
  }
}
