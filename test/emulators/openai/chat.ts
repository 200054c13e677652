// POST /v1/chat/completions: vLLM's checks in its order (model, then prompt length), then the
// scripted reply — its faults, its delays, and the answer as JSON or as Server-Sent Events.
import type { ServerResponse } from 'node:http';
import { exchangeSignal, sendJson, sleep, untilAborted } from './http.ts';
import { countTokens, tokenizeChat, truncateToTokens } from './tokenizer.ts';
import type {
  EmulatorOptions,
  ModelSpec,
  ReportedUsage,
  RequestBody,
  ScriptedReply,
  StreamShape,
} from './types.ts';
import {
  completionBody,
  contextLengthMessage,
  errorBody,
  inputTooLongMessage,
  maxTokensTooLargeMessage,
  modelNotFound,
  type Plan,
  streamChunks,
  toolCallId,
} from './wire.ts';

export interface ChatContext {
  models(): ModelSpec[];
  closing: AbortSignal;
  /** The next scripted reply (queue first, then the responder). */
  takeReply(body: RequestBody): Promise<ScriptedReply>;
  nextCompletionId(): string;
  /** The emulator-wide stream framing, under each reply's own. */
  streamShape(): StreamShape;
  toolCalling: NonNullable<EmulatorOptions['toolCalling']>;
  images: boolean;
  schedulingPolicy: NonNullable<EmulatorOptions['schedulingPolicy']>;
  /** Told every usage the client is sent. */
  reported(usage: ReportedUsage): void;
}

/** Tools offered with tool_choice auto, stated or implied (vLLM's default when tools are sent). */
function autoToolChoice(body: RequestBody): boolean {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const choice = body.tool_choice;
  return tools.length > 0 && (choice === undefined || choice === null || choice === 'auto');
}

function hasImage(body: RequestBody): boolean {
  return (body.messages as unknown[]).some((m) => {
    const content = (m as { content?: unknown } | null)?.content;
    return (
      Array.isArray(content) &&
      content.some((p) => (p as { type?: unknown } | null)?.type === 'image_url')
    );
  });
}

/** What a server whose model cannot do this request answers instead of generating. */
function refusal(ctx: ChatContext, body: RequestBody, model: ModelSpec): unknown {
  if (!ctx.images && hasImage(body)) return errorBody(`${model.id} is not a multimodal model`);
  const priority = body.priority ?? 0;
  if (priority !== 0 && ctx.schedulingPolicy !== 'priority') {
    return errorBody(`Got priority ${priority} but Priority scheduling is not enabled.`);
  }
  if (ctx.toolCalling === 'reject-auto' && autoToolChoice(body)) {
    return errorBody(
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    );
  }
  return undefined;
}

/** The scripted tool calls as the model's raw text, which a server without a parser passes on. */
function asPlainText(reply: ScriptedReply): ScriptedReply {
  const calls = reply.toolCalls ?? [];
  if (calls.length === 0) return reply;
  const written = calls.map(
    (tc) =>
      `<tool_call>\n${JSON.stringify({ name: tc.name, arguments: tc.arguments })}\n</tool_call>`,
  );
  const { toolCalls: _dropped, ...rest } = reply;
  return {
    ...rest,
    content: [reply.content ?? '', ...written].filter(Boolean).join('\n'),
    finishReason: reply.finishReason === 'tool_calls' ? 'stop' : reply.finishReason,
  } as ScriptedReply;
}

/** The model a request names, or the first served one when it names none (vLLM allows that). */
export function resolveModel(models: ModelSpec[], name: unknown): ModelSpec | undefined {
  return name === undefined || name === null ? models[0] : models.find((m) => m.id === name);
}

function requestedMaxTokens(body: RequestBody): number | undefined {
  const v = body.max_completion_tokens ?? body.max_tokens;
  return typeof v === 'number' ? v : undefined;
}

/** vLLM: stream_options present means usage is on unless include_usage is falsy. */
function wantsUsage(body: RequestBody): boolean {
  const so = body.stream_options;
  if (so === null || typeof so !== 'object') return false;
  return so.include_usage === undefined ? true : Boolean(so.include_usage);
}

function plan(
  reply: ScriptedReply,
  body: RequestBody,
  model: ModelSpec,
  promptTokens: number,
  id: string,
): Plan {
  const toolCalls = (reply.toolCalls ?? []).map((tc) => ({
    id: tc.id ?? toolCallId(),
    name: tc.name,
    arguments: typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments),
  }));
  let content: string | null = reply.content ?? null;
  if (toolCalls.length > 0 && content === '') content = null;
  if (toolCalls.length === 0 && content === null) content = '';
  let finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  // A real server stops generating at max_tokens: cut the text and say so.
  const maxTokens = requestedMaxTokens(body);
  if (maxTokens !== undefined && content !== null && toolCalls.length === 0) {
    if (countTokens(content) > maxTokens) {
      content = truncateToTokens(content, maxTokens);
      finishReason = 'length';
    }
  }
  const computed =
    countTokens(content ?? '') +
    toolCalls.reduce((n, tc) => n + countTokens(tc.name) + countTokens(tc.arguments), 0);
  const prompt_tokens = reply.usage?.prompt_tokens ?? promptTokens;
  const completion_tokens = reply.usage?.completion_tokens ?? computed;
  return {
    id,
    created: Math.floor(Date.now() / 1000),
    model: model.id,
    content,
    toolCalls,
    finishReason,
    usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
  };
}

type Checked =
  | { ok: true; model: ModelSpec; promptTokens: number }
  | { ok: false; status: number; body: unknown };

/** vLLM's request checks, answered before any scripted reply is consumed. */
function check(body: RequestBody, models: ModelSpec[]): Checked {
  const fail = (status: number, err: unknown): Checked => ({ ok: false, status, body: err });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return fail(400, errorBody('The request body must be a JSON object.'));
  }
  if (!Array.isArray(body.messages)) {
    const message = "1 validation error: ('body', 'messages') Field required";
    return fail(400, errorBody(message, 'BadRequestError', 400, 'messages'));
  }
  if (body.stream_options != null && body.stream !== true) {
    const message = 'Stream options can only be defined when `stream=True`.';
    return fail(400, errorBody(message, 'BadRequestError', 400, 'stream_options'));
  }
  const model = resolveModel(models, body.model);
  if (model === undefined) return fail(404, modelNotFound(String(body.model)));
  const prompt = tokenizeChat(body).length;
  if (prompt >= model.max_model_len) {
    const message = inputTooLongMessage(model.max_model_len, prompt);
    return fail(400, errorBody(message, 'BadRequestError', 400, 'input_tokens'));
  }
  const maxTokens = requestedMaxTokens(body);
  if (maxTokens !== undefined && prompt + maxTokens > model.max_model_len) {
    const message = maxTokensTooLargeMessage(maxTokens, model.max_model_len, prompt);
    return fail(400, errorBody(message, 'BadRequestError', 400, 'max_tokens'));
  }
  return { ok: true, model, promptTokens: prompt };
}

export async function handleChat(
  ctx: ChatContext,
  res: ServerResponse,
  body: RequestBody,
): Promise<void> {
  const signal = exchangeSignal(res, ctx.closing);
  const checked = check(body, ctx.models());
  if (!checked.ok) return sendJson(res, checked.status, checked.body);
  const { model, promptTokens } = checked;
  const refused = refusal(ctx, body, model);
  if (refused !== undefined) return sendJson(res, 400, refused);

  let reply: ScriptedReply;
  try {
    reply = await ctx.takeReply(body);
    if (ctx.toolCalling === 'plain-text' && autoToolChoice(body)) reply = asPlainText(reply);
  } catch (err) {
    const message = `emulator responder threw: ${err instanceof Error ? err.message : String(err)}`;
    return sendJson(res, 500, errorBody(message, 'InternalServerError', 500));
  }
  if (!(await sleep(reply.delayMs ?? 0, signal))) return;

  switch (reply.fault) {
    case 'http500':
      return sendJson(res, 500, errorBody('Internal server error', 'InternalServerError', 500));
    case 'http429': {
      const retryAfter = String(reply.retryAfterSeconds ?? 1);
      const message = 'Too many requests: the server is at capacity, retry later.';
      return sendJson(res, 429, errorBody(message, 'RateLimitError', 429), {
        'retry-after': retryAfter,
      });
    }
    case 'context_length': {
      // Always over the limit, whatever the prompt: completion takes up the rest and one more.
      const max = model.max_model_len;
      const completion = Math.max(requestedMaxTokens(body) ?? 0, max - promptTokens + 1);
      const message = contextLengthMessage(max, promptTokens, completion);
      return sendJson(res, 400, errorBody(message, 'BadRequestError', 400));
    }
    case 'hang':
      // Never answer; the socket goes when the client gives up or the emulator closes.
      return untilAborted(signal);
    case 'reset':
      if (body.stream !== true) {
        res.socket?.destroy();
        return;
      }
      break;
    case undefined:
      break;
  }

  const p = plan(reply, body, model, promptTokens, ctx.nextCompletionId());
  if (body.stream !== true) {
    ctx.reported(p.usage);
    return sendJson(res, 200, completionBody(p));
  }

  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  const role = reply.stream?.role ?? ctx.streamShape().role ?? true;
  const usage = reply.stream?.usage ?? ctx.streamShape().usage ?? true;
  const chunks = streamChunks(p, wantsUsage(body) && usage, role);
  if (wantsUsage(body) && usage) ctx.reported(p.usage);
  for (const [i, chunk] of chunks.entries()) {
    if (i > 0 && !(await sleep(reply.chunkDelayMs ?? 0, signal))) return;
    if (signal.aborted) return;
    const line = `data: ${JSON.stringify(chunk)}\n\n`;
    // Reset mid-stream: the opening chunk and one content/tool chunk get out, then the line drops.
    if (reply.fault === 'reset' && i === 1) {
      res.write(line, () => res.socket?.destroy());
      return;
    }
    res.write(line);
  }
  res.end('data: [DONE]\n\n');
}
