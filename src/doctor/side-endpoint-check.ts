// One doctor check for a side model (embeddings, a reranker) on an OpenAI-compatible endpoint:
// none (a warning naming how to turn it on), the embedded engine (its model file must exist), or a
// server that must list the model and answer one probe. Without a side model every answer still
// comes, so nothing here is ✗.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SideEndpoint } from '../config/side-endpoint.ts';
import { fetchModels } from '../llm/model-info.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';

export interface SideEndpointCheck {
  /** The check's name, e.g. llm_embed. */
  name: string;
  /** The settings' environment prefix, e.g. LLM_EMBED (…_BASE_URL, …_MODEL). */
  env: string;
  endpoint: SideEndpoint;
  apiKey: string | undefined;
  /** What search loses without it, e.g. "search is by words only". */
  degraded: string;
  /** The warning and its fix when none is configured. */
  none: { summary: string; fix: string };
  /** Embedded: the model used when none is named; without one, an empty name is a warning. */
  defaultModel?: string | undefined;
  /** Embedded: how to name a model file that exists. */
  modelFix: string;
  /** The path probed, e.g. "embeddings", and how to serve it when the probe fails. */
  probePath: string;
  probeFix: string;
  /** Sends one probe with `fetch`; returns the ok summary. */
  probe(fetch: typeof globalThis.fetch, timeoutMs: number, signal: AbortSignal): Promise<string>;
  /** The failure's reason (e.g. "timeout") when the probe throws the side model's error. */
  reasonOfFailure(err: unknown): string;
}

function embeddedResult(c: SideEndpointCheck, model: string): CheckResult {
  const { name } = c;
  const spec = model.trim() || (c.defaultModel ?? '');
  if (spec === '')
    return {
      name,
      status: 'warn',
      summary: `${c.env}_BASE_URL=embedded without ${c.env}_MODEL: ${c.degraded}`,
      fix: c.modelFix,
    };
  if (/^(hf|huggingface|https?):/i.test(spec))
    return {
      name,
      status: 'ok',
      summary: `embedded: ${spec}, downloaded once into dataDir/models and run by the bot on loopback`,
    };
  const file = path.resolve(spec);
  if (existsSync(file))
    return { name, status: 'ok', summary: `embedded: ${file}, run by the bot on loopback` };
  return {
    name,
    status: 'warn',
    summary: `${c.env}_MODEL names ${file}, which does not exist: ${c.degraded}`,
    fix: c.modelFix,
  };
}

async function remoteResult(
  c: SideEndpointCheck,
  baseUrl: string,
  model: string,
  ctx: CheckContext,
): Promise<CheckResult> {
  const { name, apiKey } = c;
  const fetchWithSignal: typeof fetch = (url, init) =>
    fetch(url, { ...init, signal: stepSignal(ctx) });
  let served: string[];
  try {
    served = (
      await fetchModels({ baseUrl, apiKey, timeoutMs: ctx.stepTimeoutMs, fetch: fetchWithSignal })
    ).map((m) => m.id);
  } catch (err) {
    return {
      name,
      status: 'warn',
      summary: `cannot list models at ${baseUrl}: ${reasonOf(err)}; ${c.degraded} until it answers`,
      fix: `Check ${c.env}_BASE_URL (the server’s /v1 address), that the server is running and reachable from here, and LLM_API_KEY if it wants one.`,
    };
  }
  if (model && !served.includes(model))
    return {
      name,
      status: 'warn',
      summary: `${c.env}_MODEL=${model} is not served; ${baseUrl} lists ${served.join(', ') || 'no models'}`,
      fix: `Set ${c.env}_MODEL to a served model id (or leave it empty for the first one).`,
    };
  try {
    const summary = await c.probe(fetchWithSignal, ctx.stepTimeoutMs, ctx.signal);
    return { name, status: 'ok', summary };
  } catch (err) {
    return {
      name,
      status: 'warn',
      summary: `POST ${baseUrl}/${c.probePath} failed (${c.reasonOfFailure(err)}): ${reasonOf(err)}`,
      fix: c.probeFix,
    };
  }
}

export function sideEndpointCheckGroup(c: SideEndpointCheck): CheckGroup {
  return {
    names: [c.name],
    async run(ctx, report) {
      const e = c.endpoint;
      if (e.kind === 'none') report({ name: c.name, status: 'warn', ...c.none });
      else if (e.kind === 'embedded') report(embeddedResult(c, e.model));
      else report(await remoteResult(c, e.baseUrl, e.model, ctx));
    },
  };
}
