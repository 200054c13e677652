// The embedded models' OpenAI-compatible HTTP server, on loopback only: GET /v1/models,
// POST /v1/chat/completions (plain and SSE, chat-route.ts) and POST /tokenize for a chat model,
// POST /v1/embeddings for an embedding model, POST /v1/rerank for a ranking model, and GET /health, with vLLM's shapes, statuses and
// context-length errors, so the bot (and curl) use it exactly as they use vLLM.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../log/logger.ts';
import { toChatHistory, toFunctions } from './chat-mapping.ts';
import { chatCompletion, checkModel } from './chat-route.ts';
import type { EmbeddingEngine } from './embedding-engine.ts';
import { embeddingsResponse } from './embeddings-route.ts';
import type { EmbeddedEngine } from './engine.ts';
import { readJson, sendJson } from './http-json.ts';
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

async function tokenize(engine: EmbeddedEngine, req: IncomingMessage, res: ServerResponse) {
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
}

async function embed(
  engine: EmbeddingEngine,
  log: Logger,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const body = await readJson(req);
  const gone = clientGone(res);
  const answer = await embeddingsResponse(engine, body, gone.signal);
  gone.done();
  if (answer.truncated > 0)
    log.debug({ texts: answer.truncated, model: engine.id }, 'embedded: texts cut to fit');
  sendJson(res, 200, answer.body);
}

/** An AbortSignal that fires when the client goes away before the answer is sent. */
function clientGone(res: ServerResponse): { signal: AbortSignal; done: () => void } {
  const aborter = new AbortController();
  let finished = false;
  res.on('close', () => {
    if (!finished) aborter.abort(new Error('the client closed the connection'));
  });
  return {
    signal: aborter.signal,
    done: () => {
      finished = true;
    },
  };
}

async function rerank(engine: RankingModel, req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const gone = clientGone(res);
  const answer = await rerankResponse(engine, body, gone.signal);
  gone.done();
  sendJson(res, 200, answer);
}

export function startEmbeddedServer(o: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const { log } = o;
  const created = Math.floor(Date.now() / 1000);

  const models = () => {
    const { engine, embeddings, ranking } = o;
    const lists = [
      ...(engine ? [modelList(engine.id, engine.contextSize, created)] : []),
      ...(embeddings ? [modelList(embeddings.id, embeddings.contextSize, created)] : []),
      ...(ranking ? [modelList(ranking.id, ranking.contextSize, created)] : []),
    ];
    return { object: 'list', data: lists.flatMap((l) => l.data) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://loopback');
    const route = `${req.method} ${url.pathname.replace(/\/+$/, '') || '/'}`;
    const { engine, embeddings, ranking } = o;
    try {
      switch (route) {
        case 'GET /v1/models':
          sendJson(res, 200, models());
          return;
        case 'POST /v1/chat/completions':
          if (!engine) break;
          await chatCompletion(engine, log, req, res);
          return;
        case 'POST /tokenize':
          if (!engine) break;
          await tokenize(engine, req, res);
          return;
        case 'POST /v1/embeddings':
          if (!embeddings) break;
          await embed(embeddings, log, req, res);
          return;
        case 'POST /v1/rerank':
        case 'POST /rerank':
          if (!ranking) break;
          await rerank(ranking, req, res);
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
