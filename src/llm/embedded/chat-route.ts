// POST /v1/chat/completions on the embedded model, as vLLM answers it: the request checked against
// the model's window (vLLM's context-length errors), then the reply whole or as server-sent events.
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { orderedEvents } from '../../log/http-app.ts';
import type { Logger } from '../../log/logger.ts';
import { toChatHistory, toFunctions } from './chat-mapping.ts';
import type { EmbeddedEngine, GenerateInput, GenerateResult, ToolChoice } from './engine.ts';
import { readJson } from './http-json.ts';
import {
  type ChatRequest,
  chatRequestSchema,
  completionId,
  describeIssues,
  errorBody,
  inputTooLong,
  maxTokensTooLarge,
  modelNotFound,
  type OutToolCall,
  toolCallId,
  usageOf,
  WireError,
} from './wire.ts';

/** A request naming another model than the one loaded is refused, as vLLM does. */
export function checkModel(engine: EmbeddedEngine, model: string | undefined): void {
  if (model !== undefined && model !== '' && model !== engine.id) throw modelNotFound(model);
}

function toolChoiceOf(req: ChatRequest): ToolChoice {
  const choice = req.tool_choice;
  const names = new Set((req.tools ?? []).map((t) => t.function.name));
  if (choice === undefined || choice === null) return names.size > 0 ? 'auto' : 'none';
  if (typeof choice === 'string') {
    if (choice === 'required' && names.size === 0)
      throw new WireError('tool_choice "required" needs at least one tool in `tools`.');
    return choice;
  }
  if (!names.has(choice.function.name))
    throw new WireError(`Tool '${choice.function.name}' has not been passed in \`tools\`.`);
  return { name: choice.function.name };
}

function stopsOf(stop: ChatRequest['stop']): string[] {
  if (stop === undefined || stop === null) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((s) => s !== '');
}

function outCalls(result: GenerateResult): OutToolCall[] {
  return result.calls.map((c) => ({
    id: toolCallId(),
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.params ?? {}) },
  }));
}

/** The generation a valid request asks for; vLLM's errors for one that does not fit the window. */
function generationOf(engine: EmbeddedEngine, body: ChatRequest, signal: AbortSignal) {
  const toolChoice = toolChoiceOf(body);
  const history = toChatHistory(body.messages);
  const functions = toFunctions(body.tools);
  const prompt = engine.promptTokens(history, functions).length;
  const maxLen = engine.contextSize;
  if (prompt >= maxLen) throw inputTooLong(maxLen, prompt);
  const asked = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  if (asked !== undefined && asked > maxLen - prompt)
    throw maxTokensTooLarge(asked, maxLen, prompt);
  const maxTokens = asked ?? maxLen - prompt;
  return {
    history,
    functions,
    toolChoice,
    maxTokens,
    temperature: body.temperature ?? 1,
    topP: body.top_p ?? undefined,
    topK: body.top_k ?? undefined,
    seed: body.seed ?? undefined,
    stop: stopsOf(body.stop),
    signal,
  } satisfies GenerateInput;
}

export async function chatCompletion(
  engine: EmbeddedEngine,
  log: Logger,
  c: Context,
): Promise<Response> {
  const parsed = chatRequestSchema.safeParse(await readJson(c));
  if (!parsed.success) throw new WireError(describeIssues(parsed.error));
  const body = parsed.data;
  checkModel(engine, body.model);
  const aborter = new AbortController();
  // The request's signal fires when the client goes away before the answer is sent.
  const gone = () => aborter.abort(new Error('the client closed the connection'));
  c.req.raw.signal.addEventListener('abort', gone, { once: true });
  const input = generationOf(engine, body, aborter.signal);
  const call = { engine, log, input, aborter, id: completionId(), model: engine.id };
  if (!body.stream) return answerWhole(c, call);
  const includeUsage = body.stream_options?.include_usage === true;
  return streamSSE(c, async (stream) => {
    stream.onAbort(gone);
    await answerStream(stream, call, includeUsage);
  });
}

interface ChatCall {
  engine: EmbeddedEngine;
  log: Logger;
  input: GenerateInput;
  aborter: AbortController;
  id: string;
  model: string;
}

async function answerWhole(c: Context, { engine, input, id, model }: ChatCall): Promise<Response> {
  const result = await engine.generate(input);
  const calls = outCalls(result);
  return c.json({
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: result.text === '' && calls.length > 0 ? null : result.text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: result.finish,
        stop_reason: null,
      },
    ],
    usage: usageOf(result.promptTokens, result.completionTokens),
  });
}

async function answerStream(
  stream: SSEStreamingApi,
  call: ChatCall,
  includeUsage: boolean,
): Promise<void> {
  const { engine, log, input, aborter, id, model } = call;
  const chunkTime = Math.floor(Date.now() / 1000);
  const events = orderedEvents(stream);
  const data = (value: unknown) => events.send({ data: JSON.stringify(value) });
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    data({
      id,
      object: 'chat.completion.chunk',
      created: chunkTime,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  send({ role: 'assistant', content: '' });
  try {
    const result = await engine.generate({
      ...input,
      onText: (text) => {
        if (text !== '') send({ content: text });
      },
    });
    const calls = outCalls(result);
    if (calls.length > 0) send({ tool_calls: calls.map((c, index) => ({ index, ...c })) });
    send({}, result.finish);
    if (includeUsage)
      data({
        id,
        object: 'chat.completion.chunk',
        created: chunkTime,
        model,
        choices: [],
        usage: usageOf(result.promptTokens, result.completionTokens),
      });
  } catch (err) {
    if (aborter.signal.aborted) return;
    log.error({ err }, 'embedded model failed while streaming');
    // Like vLLM: an error inside a stream is an event carrying the error, then [DONE].
    data(errorBody('The embedded model failed.', 500, 'InternalServerError'));
  }
  events.send({ data: '[DONE]' });
  // Everything is written before the stream closes.
  await events.flushed();
}
