// The model endpoints: what /v1/models serves, the context window against the compression
// threshold, /tokenize, and (costing a little model time, so not at start-up by default) one
// tool-call probe and one image probe (llm-probes.ts).
import type { Config } from '../config/schema.ts';
import { postTokenize, serverRootOf } from '../llm/token-count/tokenize-endpoint.ts';
import { compressionThreshold } from '../memory/threshold.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  stepSignal,
} from '../model/check-result.ts';
import { imageCheck, toolCallCheck } from './llm-probes.ts';
import { type Served, served } from './llm-served.ts';

function contextCheck(config: Config, model: Served): CheckResult {
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
      fix: `Start vLLM with a larger --max-model-len (16384 or more recommended), or lower llm.text.maxReplyTokens / memory.compressAtTokens so that threshold + reply ≤ ${window}.`,
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

async function tokenizeCheck(config: Config, model: Served, ctx: CheckContext) {
  const name = 'llm_text.tokenize';
  const root = serverRootOf(config.llm.text.baseUrl);
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

export function llmCheckGroups(config: Config): CheckGroup[] {
  return [
    {
      names: ['llm_text.models', 'llm_text.context', 'llm_text.tokenize'],
      async run(ctx, report) {
        const { result, model } = await served(config, 'text', ctx);
        report(result);
        if (!model) {
          report(skipped('llm_text.context', 'llm_text.models'));
          report(skipped('llm_text.tokenize', 'llm_text.models'));
          return;
        }
        report(contextCheck(config, model));
        report(await tokenizeCheck(config, model, ctx));
      },
    },
    {
      names: ['llm_text.tool_calls'],
      costsModelTime: true,
      async run(ctx, report) {
        const { model } = await served(config, 'text', ctx);
        report(
          model
            ? await toolCallCheck(config, model, ctx)
            : skipped('llm_text.tool_calls', 'llm_text.models'),
        );
      },
    },
    {
      names: ['llm_vision.models'],
      async run(ctx, report) {
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
