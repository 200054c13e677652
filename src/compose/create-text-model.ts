import type { Config } from '../config/schema.ts';
import {
  type EmbeddedModel,
  EmbeddedSetupError,
  startEmbeddedModel,
} from '../llm/embedded/index.ts';
import { answersAt } from '../llm/embedded/probe.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';
import type { Logger } from '../log/logger.ts';

export interface TextModel {
  /** The OpenAI-compatible base URL the bot talks to. */
  baseUrl: string;
  /** Set when the model runs in-process (behind its own loopback server). */
  embedded: EmbeddedModel | undefined;
  /** What is in use, for the start-up checks and the start-up line. */
  endpoint: TextEndpoint;
}

function embeddedModel(embedded: EmbeddedModel): TextModel {
  return {
    baseUrl: embedded.baseUrl,
    embedded,
    endpoint: {
      kind: 'embedded',
      baseUrl: embedded.baseUrl,
      model: embedded.engine.id,
      file: embedded.file,
      contextSize: embedded.engine.contextSize,
      threads: embedded.engine.threads,
    },
  };
}

/**
 * The configured server; or, with `LLM_TEXT_BASE_URL=embedded`, the embedded model; or, when
 * nothing was configured, the default address if a server answers there within the probe's time,
 * else the embedded model.
 */
export async function createTextModel(config: Config, log: Logger): Promise<TextModel> {
  const { text, local } = config.llm;
  const server = (found: boolean): TextModel => ({
    baseUrl: text.baseUrl,
    embedded: undefined,
    endpoint: { kind: 'server', baseUrl: text.baseUrl, found },
  });
  if (config.textModel === 'remote') return server(false);
  if (config.textModel === 'probe') {
    if (await answersAt(text.baseUrl, local.probeTimeoutMs)) {
      log.info({ base_url: text.baseUrl }, 'a model server answers at the default address');
      return server(true);
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
  if (config.textModel === 'embedded') return embeddedModel(await start());
  try {
    return embeddedModel(await start());
  } catch (err) {
    // Nothing was configured and the default model cannot be had (offline, no space): the bot
    // still starts, so the web chat and the doctor can say what is missing, and turns report the
    // model as unreachable until a server answers at the default address.
    const setup = err instanceof EmbeddedSetupError;
    const summary = setup ? err.summary : err instanceof Error ? err.message : String(err);
    const fix = setup
      ? err.fix
      : 'Set LLM_TEXT_BASE_URL to a model server, or LLM_LOCAL_MODEL to a .gguf file.';
    log.error(
      { base_url: text.baseUrl, ...(fix ? { fix } : {}), ...(setup ? {} : { err }) },
      `the embedded model is not available: ${summary}`,
    );
    return {
      baseUrl: text.baseUrl,
      embedded: undefined,
      endpoint: { kind: 'unavailable', summary, fix, fallbackUrl: text.baseUrl },
    };
  }
}
