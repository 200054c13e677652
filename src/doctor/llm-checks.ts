// The model endpoints: what /v1/models serves, the context window against the compression
// threshold, /tokenize, and (costing a little model time, so not at start-up by default) one
// tool-call probe and one image probe (llm-probes.ts).
import type { Config } from '../config/schema.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';
import { postTokenize, serverRootOf } from '../llm/token-count/tokenize-endpoint.ts';
import { compressionThreshold } from '../memory/threshold.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  stepSignal,
} from '../model/check-result.ts';
import { embeddedModelsResult, visionSkipped } from './llm-embedded.ts';
import { imageCheck, toolCallCheck } from './llm-probes.ts';
import { type Served, served } from './llm-served.ts';
import { priorityCheck } from './priority-check.ts';

function contextCheck(config: Config, model: Served, embedded: boolean): CheckResult {
  const name = 'llm_text.context';
  const window = model.maxModelLen ?? config.memory.maxModelLenFallback;
  const threshold = compressionThreshold(config.memory.compressAtTokens, window);
  const reply = config.llm.text.maxReplyTokens;
  const how = config.memory.compressAtTokens > 0 ? 'memory.compressAtTokens' : 'automatic';
  const figures = `window ${window}, compression threshold ${threshold} (${how}), reply budget ${reply}`;
  if (model.maxModelLen === undefined) {
    return {
      name,
      status: 'warn',
      summary: `the server does not report max_model_len; assuming memory.maxModelLenFallback (${figures})`,
      fix: 'Set memory.maxModelLenFallback to the window vLLM was started with (--max-model-len).',
    };
  }
  if (threshold + reply > window) {
    return {
      name,
      status: 'fail',
      summary: `max_model_len ${window} is too small: a thread at the compression threshold (${threshold}) plus one full reply (${reply}) does not fit, so requests are cut (${figures})`,
      fix: `${embedded ? 'Set LLM_LOCAL_CONTEXT higher (the model may allow more)' : 'Start vLLM with a larger --max-model-len (16384 or more recommended)'}, or lower llm.text.maxReplyTokens / memory.compressAtTokens so that threshold + reply ≤ ${window}.`,
    };
  }
  if (config.memory.compressAtTokens > window) {
    return {
      name,
      status: 'warn',
      summary: `memory.compressAtTokens (${config.memory.compressAtTokens}) is above max_model_len; the window is used instead (${figures})`,
      fix: 'Lower memory.compressAtTokens below the window, or set it to 0 for the automatic threshold.',
    };
  }
  return { name, status: 'ok', summary: figures };
}

async function tokenizeCheck(config: Config, model: Served, ctx: CheckContext, base: string) {
  const name = 'llm_text.tokenize';
  const root = serverRootOf(base);
  const answer = await postTokenize(
    {
      serverRoot: root,
      model: model.id,
      apiKey: config.secrets.llmApiKey,
      timeoutMs: ctx.stepTimeoutMs,
      fetch: (url, init) => fetch(url, { ...init, signal: stepSignal(ctx) }),
    },
    { messages: [{ role: 'user', content: 'ping' }] },
  );
  if (answer.kind === 'count') {
    return {
      name,
      status: 'ok',
      summary: `POST ${root}/tokenize counts exactly`,
    } satisfies CheckResult;
  }
  if (answer.kind === 'missing') {
    return {
      name,
      status: 'warn',
      summary: `the server has no POST ${root}/tokenize: prompts are counted from the last response's usage plus an estimate, so a thread may be summarised a little early or late`,
      fix: 'Nothing breaks. For exact counts serve the model with vLLM, which has /tokenize at the server root.',
    } satisfies CheckResult;
  }
  return {
    name,
    status: 'warn',
    summary: `POST ${root}/tokenize failed (${answer.reason}); counting falls back to usage plus an estimate`,
    fix: 'Check the model server’s log for the error.',
  } satisfies CheckResult;
}

const skipped = (name: string, because: string): CheckResult => ({
  name,
  status: 'skip',
  summary: `not checked: ${because} failed`,
});

/** The base URL the bot's turns use, when a model is (or would be) there to check. */
function inUse(e: TextEndpoint): string | undefined {
  return e.kind === 'server' || e.kind === 'embedded' ? e.baseUrl : undefined;
}

async function textModels(config: Config, e: TextEndpoint, ctx: CheckContext) {
  if (e.kind === 'server') {
    const r = await served(config, 'text', ctx, e.baseUrl);
    if (!e.found || r.result.status !== 'ok') return r;
    return {
      ...r,
      result: {
        ...r.result,
        summary: `the model server at the default address ${r.result.summary}`,
      },
    };
  }
  const result = embeddedModelsResult(config, e);
  return e.kind === 'embedded'
    ? { result, model: { id: e.model, maxModelLen: e.contextSize } satisfies Served }
    : { result };
}

const NOT_LOADED = 'not checked: the doctor does not load the embedded model (npm start does)';

/**
 * `textEndpoint`: the text model in use (start-up) or the one start-up would use (the doctor), so
 * the checks never probe an address nothing talks to.
 */
export function llmCheckGroups(
  config: Config,
  textEndpoint: () => Promise<TextEndpoint>,
): CheckGroup[] {
  const embeddedText = async () => {
    const e = await textEndpoint();
    return (e.kind === 'embedded' || e.kind === 'embedded-planned') && !config.visionConfigured;
  };
  return [
    {
      names: ['llm_text.models', 'llm_text.context', 'llm_text.tokenize'],
      async run(ctx, report) {
        const e = await textEndpoint();
        const { result, model } = await textModels(config, e, ctx);
        report(result);
        const base = inUse(e);
        if (!model || !base) {
          const because =
            e.kind === 'embedded-planned'
              ? { status: 'skip' as const, summary: NOT_LOADED }
              : skipped('', 'llm_text.models');
          report({ ...because, name: 'llm_text.context' });
          report({ ...because, name: 'llm_text.tokenize' });
          return;
        }
        report(contextCheck(config, model, e.kind === 'embedded'));
        report(await tokenizeCheck(config, model, ctx, base));
      },
    },
    {
      names: ['llm_text.tool_calls'],
      costsModelTime: true,
      async run(ctx, report) {
        const e = await textEndpoint();
        const base = inUse(e);
        if (e.kind === 'embedded-planned') {
          report({ name: 'llm_text.tool_calls', status: 'skip', summary: NOT_LOADED });
          return;
        }
        const model = base ? (await textModels(config, e, ctx)).model : undefined;
        report(
          model && base
            ? await toolCallCheck(config, model, ctx, base)
            : skipped('llm_text.tool_calls', 'llm_text.models'),
        );
      },
    },
    {
      names: ['llm_text.priority'],
      costsModelTime: true,
      async run(ctx, report) {
        const e = await textEndpoint();
        const base = e.kind === 'server' ? e.baseUrl : undefined;
        const model = base ? (await textModels(config, e, ctx)).model : undefined;
        report(
          model && base
            ? await priorityCheck(config, model, ctx, base)
            : {
                name: 'llm_text.priority',
                status: 'skip',
                summary: 'only a vLLM server schedules by priority',
              },
        );
      },
    },
    {
      names: ['llm_vision.models'],
      async run(ctx, report) {
        if (await embeddedText()) {
          report(visionSkipped('llm_vision.models'));
          return;
        }
        const { result } = await served(config, 'vision', ctx);
        // Without the vision model only image questions fail, with a clear answer.
        report(
          result.status === 'fail'
            ? {
                ...result,
                status: 'warn',
                summary: `${result.summary} (only image questions need it)`,
              }
            : result,
        );
      },
    },
    {
      names: ['llm_vision.image'],
      costsModelTime: true,
      async run(ctx, report) {
        if (await embeddedText()) {
          report(visionSkipped('llm_vision.image'));
          return;
        }
        const { model } = await served(config, 'vision', ctx);
        report(
          model
            ? await imageCheck(config, model, ctx)
            : skipped('llm_vision.image', 'llm_vision.models'),
        );
      },
    },
  ];
}
