// The emulator's HTTP server: routes, auth, the reply queue and lifecycle. Everything binds to
// 127.0.0.1 on an ephemeral port; close() tears down open sockets so a test never waits on one.
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ChatContext, handleChat, resolveModel } from './chat.ts';
import { handleEmbeddings } from './embeddings.ts';
import { readBody, sendJson, sendNotFound } from './http.ts';
import { handleRerank } from './rerank.ts';
import { contentText, countTokens, tokenizeChat, tokenizeText } from './tokenizer.ts';
import type {
  EmbeddingModelSpec,
  EmbeddingReply,
  EmulatorOptions,
  ModelSpec,
  OpenAIEmulator,
  RecordedRequest,
  ReportedUsage,
  RequestBody,
  RerankModelSpec,
  RerankReply,
  Responder,
  ScriptedReply,
  StreamShape,
} from './types.ts';
import { errorBody, modelList, modelNotFound } from './wire.ts';

export const DEFAULT_MODELS: readonly ModelSpec[] = [{ id: 'qwen3-8b', max_model_len: 32768 }];

const CHAT_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';
const RERANK_PATHS = new Set(['/v1/rerank', '/rerank']);
const ROUTES: Record<string, string> = {
  '/health': 'GET',
  '/v1/models': 'GET',
  [CHAT_PATH]: 'POST',
  [EMBEDDINGS_PATH]: 'POST',
  '/v1/rerank': 'POST',
  '/rerank': 'POST',
  '/tokenize': 'POST',
};

/** Replies `echo: <text of the last user message>`. */
export const echoResponder: Responder = (req: RequestBody) => {
  const messages: unknown[] = Array.isArray(req?.messages) ? req.messages : [];
  const lastUser = messages.findLast((m) => (m as { role?: unknown } | null)?.role === 'user');
  return {
    content: `echo: ${contentText((lastUser as { content?: unknown } | undefined)?.content)}`,
  };
};

function parseJson(text: string): { ok: true; value: RequestBody } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return type === undefined || type.toLowerCase().startsWith('application/json');
}

/** Epoch milliseconds with sub-millisecond precision, monotonic within a process. */
const preciseNow = (): number => performance.timeOrigin + performance.now();

export async function startOpenAIEmulator(opts: EmulatorOptions = {}): Promise<OpenAIEmulator> {
  let models: ModelSpec[] = [...(opts.models ?? DEFAULT_MODELS)];
  let embeddingModels: EmbeddingModelSpec[] = [...(opts.embeddingModels ?? [])];
  let embeddingReply: EmbeddingReply = {};
  const embeddingQueue: EmbeddingReply[] = [];
  let rerankModels: RerankModelSpec[] = [...(opts.rerankModels ?? [])];
  const rerankQueue: RerankReply[] = [];
  let tokenizeOn = opts.tokenize ?? true;
  let down = false;
  let streamShape: StreamShape = { ...opts.stream };
  let responder: Responder = echoResponder;
  let counter = 0;
  const queue: (ScriptedReply | Responder)[] = [];
  const requests: RecordedRequest[] = [];
  const reportedUsage: ReportedUsage[] = [];
  const closing = new AbortController();

  const ctx: ChatContext = {
    models: () => models,
    closing: closing.signal,
    takeReply: async (body) => {
      const next = queue.shift() ?? responder;
      return typeof next === 'function' ? await next(body) : next;
    },
    // Unique per completion: LangChain merges messages that share an id.
    nextCompletionId: () => `chatcmpl-${++counter}-${randomBytes(6).toString('hex')}`,
    streamShape: () => streamShape,
    toolCalling: opts.toolCalling ?? 'on',
    images: opts.images ?? true,
    schedulingPolicy: opts.schedulingPolicy ?? 'fcfs',
    reported: (u) => {
      reportedUsage.push({
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
      });
    },
  };

  const authorized = (req: IncomingMessage): boolean =>
    opts.apiKey === undefined || req.headers.authorization === `Bearer ${opts.apiKey}`;

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    receivedAt: number,
  ): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://emulator').pathname;
    const method = ROUTES[path];
    if (method === undefined || (path === '/tokenize' && !tokenizeOn)) {
      req.resume();
      return sendNotFound(res);
    }
    if (req.method !== method) {
      req.resume();
      return sendJson(res, 405, { detail: 'Method Not Allowed' });
    }
    if (path === '/health') {
      res.writeHead(200, { 'content-length': '0' });
      res.end();
      return;
    }

    const raw = method === 'POST' ? await readBody(req) : '';
    const parsed = parseJson(raw);
    if ((path === CHAT_PATH || path === EMBEDDINGS_PATH || RERANK_PATHS.has(path)) && parsed.ok) {
      const rec: RecordedRequest = {
        path,
        body: parsed.value,
        headers: { ...req.headers },
        at: Date.now(),
        receivedAt,
      };
      // 'finish': the last byte went to the socket; never fires for a reset or an abandoned stream.
      res.once('finish', () => {
        rec.lastByteAt = preciseNow();
      });
      requests.push(rec);
    }
    // vLLM guards every route but the health probes once --api-key is set.
    if (!authorized(req)) {
      const message = 'Unauthorized: missing or invalid API key';
      return sendJson(res, 401, errorBody(message, 'AuthenticationError', 401));
    }
    if (path === '/v1/models')
      return sendJson(res, 200, modelList([...models, ...embeddingModels, ...rerankModels]));
    if (!isJsonContentType(req)) {
      return sendJson(res, 415, {
        detail: "Unsupported Media Type: Only 'application/json' is allowed",
      });
    }
    if (!parsed.ok) return sendJson(res, 400, errorBody(`JSON decode error: ${parsed.error}`));
    if (path === CHAT_PATH) return handleChat(ctx, res, parsed.value);
    if (path === EMBEDDINGS_PATH) {
      return handleEmbeddings(
        {
          embeddingModels: () => embeddingModels,
          takeEmbeddingReply: () => embeddingQueue.shift() ?? embeddingReply,
          closing: closing.signal,
        },
        res,
        parsed.value,
      );
    }
    if (RERANK_PATHS.has(path)) {
      return handleRerank(
        {
          rerankModels: () => rerankModels,
          takeRerankReply: () => rerankQueue.shift() ?? {},
          closing: closing.signal,
        },
        res,
        parsed.value,
      );
    }
    return tokenize(res, parsed.value);
  }

  function tokenize(res: ServerResponse, body: RequestBody): void {
    const [status, answer] = tokenizeAnswer(body);
    sendJson(res, status, answer);
  }

  function tokenizeAnswer(body: RequestBody): [number, unknown] {
    if (body === null || typeof body !== 'object') {
      return [400, errorBody('The request body must be a JSON object.')];
    }
    const model = resolveModel(models, body.model);
    if (model === undefined) return [404, modelNotFound(String(body.model))];
    if (body.continue_final_message === true && body.add_generation_prompt === true) {
      const message =
        'Cannot set both `continue_final_message` and `add_generation_prompt` to True.';
      return [400, errorBody(message)];
    }
    let tokens: number[];
    if (Array.isArray(body.messages)) tokens = tokenizeChat(body);
    else if (typeof body.prompt === 'string') tokens = tokenizeText(body.prompt).map((p) => p.id);
    else return [400, errorBody("Either 'prompt' or 'messages' is required.")];
    const { max_model_len } = model;
    return [200, { count: tokens.length, max_model_len, tokens, token_strs: null }];
  }

  const server = http.createServer((req, res) => {
    const receivedAt = preciseNow();
    if (down) {
      req.socket.resetAndDestroy();
      return;
    }
    res.on('error', () => undefined);
    route(req, res, receivedAt).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = err instanceof Error ? err.message : String(err);
      sendJson(res, 500, errorBody(message, 'InternalServerError', 500));
    });
  });
  // Down: refuse at the door, before any bytes are read, so nothing is recorded either.
  server.on('connection', (socket) => {
    if (down) socket.resetAndDestroy();
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    reportedUsage,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setResponder: (fn) => {
      responder = fn;
    },
    setModels: (next) => {
      models = [...next];
    },
    setEmbeddingModels: (next) => {
      embeddingModels = [...next];
    },
    enqueueEmbeddings: (...replies) => {
      embeddingQueue.push(...replies);
    },
    setEmbeddingReply: (reply) => {
      embeddingReply = { ...reply };
    },
    setRerankModels: (next) => {
      rerankModels = [...next];
    },
    enqueueRerank: (...replies) => {
      rerankQueue.push(...replies);
    },
    setTokenizeEnabled: (on) => {
      tokenizeOn = on;
    },
    setDown: (value) => {
      down = value;
    },
    setStreamShape: (shape) => {
      streamShape = { ...shape };
    },
    countTokens,
    countPromptTokens: (req) => tokenizeChat({ messages: req.messages, tools: req.tools }).length,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
