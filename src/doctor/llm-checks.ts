// The model endpoints: what /v1/models serves, the context window against the compression
// threshold, /tokenize, and (costing a little model time, so not at start-up by default) one
// tool-call probe and one image probe.
import sharp from 'sharp';
import type { Config } from '../config/schema.ts';
import { postTokenize, serverRootOf } from '../llm/token-count/tokenize-endpoint.ts';
import { compressionThreshold } from '../memory/threshold.ts';
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';

type Which = 'text' | 'vision';

const ENV: Record<Which, { url: string; model: string }> = {
  text: { url: 'LLM_TEXT_BASE_URL', model: 'LLM_TEXT_MODEL' },
  vision: { url: 'LLM_VISION_BASE_URL', model: 'LLM_VISION_MODEL' },
};

export const TOOL_FLAGS = '--enable-auto-tool-choice --tool-call-parser <parser>';
const PARSERS = 'hermes for Qwen and Hermes models, llama3_json for Llama 3.x, mistral for Mistral';

interface Served {
  id: string;
  maxModelLen: number | undefined;
}

class HttpError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, what: string, body: string) {
    super(`${what} answered HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

function headers(config: Config): Record<string, string> {
  const key = config.secrets.llmApiKey;
  return { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
}

async function send(
  config: Config,
  url: string,
  ctx: CheckContext,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: headers(config),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: stepSignal(ctx),
  });
  const text = await res.text();
  if (!res.ok)
    throw new HttpError(res.status, `${body === undefined ? 'GET' : 'POST'} ${url}`, text);
  return JSON.parse(text) as unknown;
}

/** The server's error message from vLLM's `{error: {message}}` (or FastAPI's `{detail}`). */
function serverMessage(err: HttpError): string {
  try {
    const parsed = JSON.parse(err.body) as { error?: { message?: unknown }; detail?: unknown };
    const m = parsed.error?.message ?? parsed.detail;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON: fall through
  }
  return err.body.slice(0, 200);
}

function baseUrl(config: Config, which: Which): string {
  return config.llm[which].baseUrl.replace(/\/+$/, '');
}

/** GET /models and the model the bot will use (the configured one, else the first served). */
async function served(
  config: Config,
  which: Which,
  ctx: CheckContext,
): Promise<{
  result: CheckResult;
  model?: Served;
}> {
  const name = `llm_${which}.models`;
  const url = `${baseUrl(config, which)}/models`;
  let body: { data?: { id?: unknown; max_model_len?: unknown }[] };
  try {
    body = (await send(config, url, ctx)) as typeof body;
  } catch (err) {
    const auth = err instanceof HttpError && (err.status === 401 || err.status === 403);
    return {
      result: {
        name,
        status: 'fail',
        summary: `cannot list models at ${url}: ${reasonOf(err)}`,
        fix: auth
          ? 'The server wants an API key: export LLM_API_KEY with the value vLLM was started with (--api-key).'
          : `Check ${ENV[which].url} (the server's /v1 address) and that the model server is running and reachable from here.`,
      },
    };
  }
  const models = (body.data ?? [])
    .filter((m) => typeof m.id === 'string')
    .map((m) => ({
      id: String(m.id),
      maxModelLen: typeof m.max_model_len === 'number' ? m.max_model_len : undefined,
    }));
  const wanted = config.llm[which].model;
  const pick = wanted ? models.find((m) => m.id === wanted) : models[0];
  if (!pick) {
    return {
      result: {
        name,
        status: 'fail',
        summary: wanted
          ? `${ENV[which].model}=${wanted} is not served; ${url} lists ${models.map((m) => m.id).join(', ') || 'no models'}`
          : `${url} lists no models`,
        fix: wanted
          ? `Set ${ENV[which].model} to a served model id (or leave it empty for the first one).`
          : 'Load a model into the server (vllm serve <model>).',
      },
    };
  }
  return {
    result: {
      name,
      status: 'ok',
      summary: `serves ${pick.id}${pick.maxModelLen ? ` (max_model_len ${pick.maxModelLen})` : ''}`,
    },
    model: pick,
  };
}

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

const PROBE_TOOL = 'threadmind_doctor_probe';

/** Tool calling as the agent uses it: tools offered, `tool_choice` auto. */
async function toolCallCheck(config: Config, model: Served, ctx: CheckContext) {
  const name = 'llm_text.tool_calls';
  const fix = `Start vLLM with ${TOOL_FLAGS} (${PARSERS}); without them the bot answers but never searches files or the knowledge graph.`;
  let body: {
    choices?: {
      message?: { content?: unknown; tool_calls?: unknown[] };
      finish_reason?: unknown;
    }[];
  };
  try {
    body = (await send(config, `${baseUrl(config, 'text')}/chat/completions`, ctx, {
      model: model.id,
      messages: [
        {
          role: 'user',
          content: `This is a connectivity test. Call the ${PROBE_TOOL} function with {"ok": true} and write nothing else.`,
        },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: PROBE_TOOL,
            description: 'Confirms that tool calling works.',
            parameters: {
              type: 'object',
              properties: { ok: { type: 'boolean' } },
              required: ['ok'],
            },
          },
        },
      ],
      // "required" or a named function would be served through structured outputs even without
      // the flags below, so only "auto" (what the agent sends) shows that tool calling is on.
      tool_choice: 'auto',
      max_tokens: 256,
      temperature: 0,
    })) as typeof body;
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      return {
        name,
        status: 'fail',
        summary: `the server refused a request with tools: ${serverMessage(err)}`,
        fix,
      } satisfies CheckResult;
    }
    return {
      name,
      status: 'fail',
      summary: `the tool-call probe failed: ${reasonOf(err)}`,
      fix: 'Check the model server’s log.',
    } satisfies CheckResult;
  }
  const choice = body.choices?.[0];
  const calls = choice?.message?.tool_calls ?? [];
  if (calls.length > 0) {
    return {
      name,
      status: 'ok',
      summary: 'the model answered a tool request with a tool call',
    } satisfies CheckResult;
  }
  const text = typeof choice?.message?.content === 'string' ? choice.message.content : '';
  const wroteOne = text.includes(PROBE_TOOL);
  return {
    name,
    status: 'fail',
    summary: wroteOne
      ? 'the model wrote a tool call as plain text and the server did not parse it: tool calling is off or --tool-call-parser does not match the model'
      : `the server answered a tool request with plain text and no tool call (finish_reason ${String(choice?.finish_reason)})`,
    fix,
  } satisfies CheckResult;
}

/** A 16×16 PNG, made here so nothing is read from disk. */
async function tinyPng(): Promise<Buffer> {
  return sharp({
    create: { width: 16, height: 16, channels: 3, background: { r: 220, g: 40, b: 40 } },
  })
    .png()
    .toBuffer();
}

async function imageCheck(config: Config, model: Served, ctx: CheckContext) {
  const name = 'llm_vision.image';
  const png = await tinyPng();
  try {
    await send(config, `${baseUrl(config, 'vision')}/chat/completions`, ctx, {
      model: model.id,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What colour is this image? One word.' },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${png.toString('base64')}` },
            },
          ],
        },
      ],
      max_tokens: 8,
      temperature: 0,
    });
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      return {
        name,
        status: 'fail',
        summary: `the vision endpoint refused an image: ${serverMessage(err)}`,
        fix: `Point LLM_VISION_BASE_URL at a server running a vision-language model (e.g. vllm serve Qwen/Qwen2.5-VL-7B-Instruct); ${model.id} looks like a text-only model.`,
      } satisfies CheckResult;
    }
    return {
      name,
      status: 'fail',
      summary: `the image probe failed: ${reasonOf(err)}`,
      fix: 'Check the vision server’s log.',
    } satisfies CheckResult;
  }
  return {
    name,
    status: 'ok',
    summary: `${model.id} accepted a small image`,
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
