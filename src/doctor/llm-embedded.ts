// llm_text.models when the text model is the embedded engine: loaded (its file, context and
// threads), not loaded yet (the doctor never loads or downloads it), or unable to run with the fix.
import type { Config } from '../config/schema.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';
import type { CheckResult } from '../model/check-result.ts';

const NAME = 'llm_text.models';

export function embeddedModelsResult(
  config: Config,
  e: Exclude<TextEndpoint, { kind: 'server' }>,
): CheckResult {
  const why =
    config.textModel === 'probe'
      ? `no model server answers at ${config.llm.text.baseUrl}, so `
      : 'LLM_TEXT_BASE_URL=embedded: ';
  switch (e.kind) {
    case 'embedded':
      return {
        name: NAME,
        status: 'ok',
        summary: `${why}the embedded model serves ${e.model} from ${e.file}: context ${e.contextSize} tokens, ${e.threads} CPU thread${e.threads === 1 ? '' : 's'}, on ${e.baseUrl}`,
      };
    case 'embedded-planned':
      return {
        name: NAME,
        status: 'ok',
        summary: e.file
          ? `${why}npm start loads the embedded model from ${e.file} (context up to ${config.llm.local.contextSize} tokens)`
          : `${why}npm start downloads the embedded model ${e.spec} once into ${e.modelsDir}, with a progress bar, then loads it`,
      };
    case 'unavailable':
      return {
        name: NAME,
        status: 'fail',
        summary: `${why}the embedded model would answer, but it cannot run: ${e.summary} ${
          config.textModel === 'probe'
            ? `Until a model server answers at ${e.fallbackUrl}, questions get an error instead of an answer.`
            : 'npm start stops with this message.'
        }`,
        ...(e.fix ? { fix: e.fix } : {}),
      };
  }
}

/** Vision beside the embedded text model: only a configured vision endpoint is used. */
export function visionSkipped(name: string): CheckResult {
  return {
    name,
    status: 'skip',
    summary:
      'no vision model configured: the embedded text model reads no images, and image questions are answered with that (LLM_VISION_BASE_URL adds one)',
  };
}
