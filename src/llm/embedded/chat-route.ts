// POST /v1/chat/completions on the embedded model, as vLLM answers it: the request checked against
// the model's window (vLLM's context-length errors), then the reply whole or as server-sent events.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../log/logger.ts';
import { toChatHistory, toFunctions } from './chat-mapping.ts';
import type { EmbeddedEngine, GenerateInput, GenerateResult, ToolChoice } from './engine.ts';
import { readJson, sendJson } from './http-json.ts';
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
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const parsed = chatRequestSchema.safeParse(await readJson(req));
  if (!parsed.success) throw new WireError(describeIssues(parsed.error));
  const body = parsed.data;
  checkModel(engine, body.model);
  const aborter = new AbortController();
  const input = generationOf(engine, body, aborter.signal);
  const call = { engine, log, res, input, aborter, id: completionId(), model: engine.id };
  let finished = false;
  res.on('close', () => {
    if (!finished) aborter.abort(new Error('the client closed the connection'));
  });
  try {
    if (!body.stream) await answerWhole(call);
    else await answerStream(call, body.stream_options?.include_usage === true);
  } finally {
    finished = true;
  }
}

interface ChatCall {
  engine: EmbeddedEngine;
  log: Logger;
  res: ServerResponse;
  input: GenerateInput;
  aborter: AbortController;
  id: string;
  model: string;
}

async function answerWhole({ engine, res, input, id, model }: ChatCall): Promise<void> {
  const result = await engine.generate(input);
  const calls = outCalls(result);
  sendJson(res, 200, {
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

async function answerStream(call: ChatCall, includeUsage: boolean): Promise<void> {
  const { engine, log, res, input, aborter, id, model } = call;
  const chunkTime = Math.floor(Date.now() / 1000);
  const send = (delta: Record<string, unknown>, finish: string | null = null) => {
    const chunk = {
      id,
      object: 'chat.completion.chunk',
      created: chunkTime,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
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
    if (includeUsage) {
      const last = {
        id,
        object: 'chat.completion.chunk',
        created: chunkTime,
        model,
        choices: [],
        usage: usageOf(result.promptTokens, result.completionTokens),
      };
      res.write(`data: ${JSON.stringify(last)}\n\n`);
    }
  } catch (err) {
    if (aborter.signal.aborted) return;
    log.error({ err }, 'embedded model failed while streaming');
    // Like vLLM: an error inside a stream is an event carrying the error, then [DONE].
    res.write(
      `data: ${JSON.stringify(errorBody('The embedded model failed.', 500, 'InternalServerError'))}\n\n`,
    );
  }
  res.end('data: [DONE]\n\n');
}
