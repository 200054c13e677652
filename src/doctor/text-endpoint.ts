// `npm run doctor` does not start the bot, so it works out the text model start-up would use, the
// same way start-up does (configured server; else the default address if it answers; else the
// embedded model), and where the embedded model's file stands, without downloading anything.
import path from 'node:path';
import type { Config } from '../config/schema.ts';
import { downloadHostProblem, findLocalModel } from '../llm/embedded/index.ts';
import { answersAt } from '../llm/embedded/probe.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';

export async function plannedTextEndpoint(config: Config): Promise<TextEndpoint> {
  const { text, local } = config.llm;
  if (config.textModel === 'remote') return { kind: 'server', baseUrl: text.baseUrl, found: false };
  if (config.textModel === 'probe' && (await answersAt(text.baseUrl, local.probeTimeoutMs)))
    return { kind: 'server', baseUrl: text.baseUrl, found: true };
  const modelsDir = path.join(config.dataDir, 'models');
  const endpoints = local.downloadEndpoint ? { huggingFace: local.downloadEndpoint } : undefined;
  const found = findLocalModel({
    spec: local.model,
    modelsDir,
    ...(endpoints ? { endpoints } : {}),
  });
  const unavailable = (e: { summary: string; fix: string | undefined }): TextEndpoint => ({
    kind: 'unavailable',
    summary: e.summary,
    fix: e.fix,
    fallbackUrl: text.baseUrl,
  });
  if (found.kind === 'missing') return unavailable(found.error);
  if (found.kind === 'file')
    return { kind: 'embedded-planned', spec: local.model, file: found.file, modelsDir };
  const offline = await downloadHostProblem(found.spec, 'LLM_LOCAL_MODEL', found.host);
  if (offline) return unavailable(offline);
  return { kind: 'embedded-planned', spec: found.spec, file: undefined, modelsDir };
}

/** Asks once, however many checks want to know. */
export function once(get: () => Promise<TextEndpoint>): () => Promise<TextEndpoint> {
  let answer: Promise<TextEndpoint> | undefined;
  return () => {
    answer ??= get();
    return answer;
  };
}
