// The embedded models' OpenAI-compatible HTTP server, on loopback only: GET /v1/models,
// POST /v1/chat/completions (plain and SSE, chat-route.ts) and POST /tokenize for a chat model,
// POST /v1/embeddings for an embedding model, POST /v1/rerank for a ranking model, and GET /health, with vLLM's shapes, statuses and
// context-length errors, so the bot (and curl) use it exactly as they use vLLM.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { httpApp, listenHttp } from '../../log/http-app.ts';
import type { Logger } from '../../log/logger.ts';
import { toChatHistory, toFunctions } from './chat-mapping.ts';
import { chatCompletion, checkModel } from './chat-route.ts';
import type { EmbeddingEngine } from './embedding-engine.ts';
import { embeddingsResponse } from './embeddings-route.ts';
import type { EmbeddedEngine } from './engine.ts';
import { limitBody, readJson } from './http-json.ts';
import type { RankingModel } from './ranking-engine.ts';
import { rerankResponse } from './rerank-route.ts';
import { describeIssues, errorBody, modelList, tokenizeRequestSchema, WireError } from './wire.ts';

export interface EmbeddedServerOptions {
  /** The chat model; without it the chat routes answer 404. */
  engine?: EmbeddedEngine | undefined;
  /** The embedding model; without it /v1/embeddings answers 404. */
  embeddings?: EmbeddingEngine | undefined;
  /** The ranking model (a cross-encoder); without it /v1/rerank answers 404. */
  ranking?: RankingModel | undefined;
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

async function tokenize(engine: EmbeddedEngine, c: Context): Promise<Response> {
  const parsed = tokenizeRequestSchema.safeParse(await readJson(c));
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
  return c.json({
    count: tokens.length,
    max_model_len: engine.contextSize,
    tokens,
    token_strs: null,
  });
}

async function embed(engine: EmbeddingEngine, log: Logger, c: Context): Promise<Response> {
  // The request's signal fires when the client goes away before the answer is sent.
  const answer = await embeddingsResponse(engine, await readJson(c), c.req.raw.signal);
  if (answer.truncated > 0)
    log.debug({ texts: answer.truncated, model: engine.id }, 'embedded: texts cut to fit');
  return c.json(answer.body);
}

async function rerank(engine: RankingModel, c: Context): Promise<Response> {
  return c.json(await rerankResponse(engine, await readJson(c), c.req.raw.signal));
}

/** vLLM's error types by status. */
function errorType(status: number): string {
  if (status === 404) return 'NotFoundError';
  return status >= 500 ? 'InternalServerError' : 'BadRequestError';
}

export async function startEmbeddedServer(o: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const { log, engine, embeddings, ranking } = o;
  const created = Math.floor(Date.now() / 1000);
  const app = httpApp({
    log,
    errorBody: (message, status) => errorBody(message, status, errorType(status)),
    failure: 'The embedded model failed.',
    refusalOf: (err) =>
      err instanceof WireError
        ? { status: err.status as ContentfulStatusCode, body: err.body() }
        : undefined,
    strict: false,
  });
  app.get('/v1/models', (c) => {
    const lists = [
      ...(engine ? [modelList(engine.id, engine.contextSize, created)] : []),
      ...(embeddings ? [modelList(embeddings.id, embeddings.contextSize, created)] : []),
      ...(ranking ? [modelList(ranking.id, ranking.contextSize, created)] : []),
    ];
    return c.json({ object: 'list', data: lists.flatMap((l) => l.data) });
  });
  app.get('/health', (c) => c.body(null, 200));
  app.post('*', limitBody);
  if (engine) {
    app.post('/v1/chat/completions', (c) => chatCompletion(engine, log, c));
    app.post('/tokenize', (c) => tokenize(engine, c));
  }
  if (embeddings) app.post('/v1/embeddings', (c) => embed(embeddings, log, c));
  if (ranking) app.post('/v1/rerank', (c) => rerank(ranking, c));
  if (ranking) app.post('/rerank', (c) => rerank(ranking, c));
  const served = await listenHttp(app, { port: o.port, host: '127.0.0.1' });
  return {
    baseUrl: `http://127.0.0.1:${served.port}/v1`,
    port: served.port,
    close: () => served.close(true),
  };
}
