// The embedded models' OpenAI-compatible HTTP server, on loopback only: GET /v1/models,
// POST /v1/chat/completions (plain and SSE) and POST /tokenize for a chat model, POST
// /v1/embeddings for an embedding model, and GET /health, with vLLM's shapes, statuses and
// context-length errors, so the bot (and curl) use it exactly as they use vLLM.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../log/logger.ts';
import { toChatHistory, toFunctions } from './chat-mapping.ts';
import type { EmbeddingEngine } from './embedding-engine.ts';
import { embeddingsResponse } from './embeddings-route.ts';
import type { EmbeddedEngine, GenerateResult, ToolChoice } from './engine.ts';
import {
  type ChatRequest,
  chatRequestSchema,
  completionId,
  describeIssues,
  errorBody,
  inputTooLong,
  maxTokensTooLarge,
  modelList,
  modelNotFound,
  type OutToolCall,
  tokenizeRequestSchema,
  toolCallId,
  usageOf,
  WireError,
} from './wire.ts';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface EmbeddedServerOptions {
  /** The chat model; without it the chat routes answer 404. */
  engine?: EmbeddedEngine | undefined;
  /** The embedding model; without it /v1/embeddings answers 404. */
  embeddings?: EmbeddingEngine | undefined;
  /** 0: any free port. */
  port: number;
  log: Logger;
}

export interface EmbeddedServer {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:41234/v1. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new WireError('The request body is too large.', 413);
    chunks.push(buf);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WireError('The request body is not valid JSON.');
  }
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

export function startEmbeddedServer(o: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const { log } = o;
  const created = Math.floor(Date.now() / 1000);

  const checkModel = (engine: EmbeddedEngine, model: string | undefined) => {
    if (model !== undefined && model !== '' && model !== engine.id) throw modelNotFound(model);
  };

  const chat = async (engine: EmbeddedEngine, req: IncomingMessage, res: ServerResponse) => {
    const parsed = chatRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) throw new WireError(describeIssues(parsed.error));
    const body = parsed.data;
    checkModel(engine, body.model);
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

    const aborter = new AbortController();
    let finished = false;
    res.on('close', () => {
      if (!finished) aborter.abort(new Error('the client closed the connection'));
    });
    const id = completionId();
    const model = engine.id;
    const input = {
      history,
      functions,
      toolChoice,
      maxTokens,
      temperature: body.temperature ?? 1,
      topP: body.top_p ?? undefined,
      topK: body.top_k ?? undefined,
      seed: body.seed ?? undefined,
      stop: stopsOf(body.stop),
      signal: aborter.signal,
    };

    if (!body.stream) {
      const result = await engine.generate(input);
      finished = true;
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
      return;
    }

    const includeUsage = body.stream_options?.include_usage === true;
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
    } finally {
      finished = true;
    }
    res.end('data: [DONE]\n\n');
  };

  const tokenize = async (engine: EmbeddedEngine, req: IncomingMessage, res: ServerResponse) => {
    const parsed = tokenizeRequestSchema.safeParse(await readJson(req));
    if (!parsed.success) throw new WireError(describeIssues(parsed.error));
    const body = parsed.data;
    checkModel(engine, body.model);
    const tokens =
      'prompt' in body
        ? engine.tokenizeText(body.prompt, body.add_special_tokens !== false)
        : engine.promptTokens(
            toChatHistory(body.messages, body.add_generation_prompt !== false),
            toFunctions(body.tools),
          );
    sendJson(res, 200, {
      count: tokens.length,
      max_model_len: engine.contextSize,
      tokens,
      token_strs: null,
    });
  };

  const embed = async (engine: EmbeddingEngine, req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    const aborter = new AbortController();
    let finished = false;
    res.on('close', () => {
      if (!finished) aborter.abort(new Error('the client closed the connection'));
    });
    const answer = await embeddingsResponse(engine, body, aborter.signal);
    finished = true;
    if (answer.truncated > 0)
      log.debug({ texts: answer.truncated, model: engine.id }, 'embedded: texts cut to fit');
    sendJson(res, 200, answer.body);
  };

  const models = () => {
    const { engine, embeddings } = o;
    const lists = [
      ...(engine ? [modelList(engine.id, engine.contextSize, created)] : []),
      ...(embeddings ? [modelList(embeddings.id, embeddings.contextSize, created)] : []),
    ];
    return { object: 'list', data: lists.flatMap((l) => l.data) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const route = `${req.method} ${url.pathname.replace(/\/+$/, '') || '/'}`;
    const { engine, embeddings } = o;
    try {
      switch (route) {
        case 'GET /v1/models':
          sendJson(res, 200, models());
          return;
        case 'POST /v1/chat/completions':
          if (!engine) break;
          await chat(engine, req, res);
          return;
        case 'POST /tokenize':
          if (!engine) break;
          await tokenize(engine, req, res);
          return;
        case 'POST /v1/embeddings':
          if (!embeddings) break;
          await embed(embeddings, req, res);
          return;
        case 'GET /health':
          res.writeHead(200).end();
          return;
      }
      req.resume();
      sendJson(res, 404, errorBody(`No route ${route}.`, 404, 'NotFoundError'));
    } catch (err) {
      if (err instanceof WireError) {
        log.debug(
          { status: err.status, message: err.message, route },
          'embedded model refused a request',
        );
        if (!res.headersSent) sendJson(res, err.status, err.body());
        else res.end();
        return;
      }
      log.error({ err, route }, 'embedded model request failed');
      if (!res.headersSent)
        sendJson(res, 500, errorBody('The embedded model failed.', 500, 'InternalServerError'));
      else res.end();
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
