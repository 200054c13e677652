// POST /v1/rerank (and /rerank) as vLLM serves it for a cross-encoder: `query` and `documents`
// (strings), optional `top_n`; the answer `{id, model, usage: {total_tokens}, results: [{index,
// document: {text}, relevance_score}]}`, best first; vLLM's 400/404s, and scripted faults. The
// scores are the emulator's own deterministic relevance: the share of the query's distinct words
// (three letters or more) the document holds, 0–1, so a passage holding every asked word scores 1
// and an unrelated one 0.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { exchangeSignal, sendJson, sleep } from './http.ts';
import { answerSideFault } from './side-faults.ts';
import { countTokens } from './tokenizer.ts';
import type { RequestBody, RerankModelSpec, RerankReply } from './types.ts';
import { errorBody, modelNotFound } from './wire.ts';

export interface RerankContext {
  rerankModels: () => RerankModelSpec[];
  takeRerankReply: () => RerankReply;
  closing: AbortSignal;
}

const words = (text: string) =>
  new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 3));

/** The emulator's relevance of `document` to `query`: the share of the query's words it holds. */
export function emulatorRelevance(query: string, document: string): number {
  const asked = words(query);
  if (asked.size === 0) return 0;
  const held = words(document);
  let found = 0;
  for (const w of asked) if (held.has(w)) found++;
  return found / asked.size;
}

function badRequest(res: ServerResponse, message: string, param: string): void {
  sendJson(res, 400, errorBody(message, 'BadRequestError', 400, param));
}

export async function handleRerank(
  ctx: RerankContext,
  res: ServerResponse,
  body: RequestBody,
): Promise<void> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return sendJson(res, 400, errorBody('The request body must be a JSON object.'));
  const models = ctx.rerankModels();
  const model =
    body.model === undefined || body.model === null
      ? models[0]
      : models.find((m) => m.id === body.model);
  if (model === undefined) return sendJson(res, 404, modelNotFound(String(body.model)));
  if (typeof body.query !== 'string') return badRequest(res, "'query' must be a string.", 'query');
  const docs: unknown = body.documents;
  if (!Array.isArray(docs) || docs.length === 0 || !docs.every((d) => typeof d === 'string'))
    return badRequest(res, "'documents' must be a non-empty list of strings.", 'documents');
  const documents = docs as string[];
  const query = body.query;
  const pairTokens = documents.map((d) => countTokens(query) + countTokens(d) + 4);
  const longest = Math.max(...pairTokens);
  if (longest > model.max_model_len)
    return badRequest(
      res,
      `This model's maximum context length is ${model.max_model_len} tokens. However, you requested ${longest} tokens in the input. Please reduce the length of the input.`,
      'documents',
    );

  const reply = ctx.takeRerankReply();
  const signal = exchangeSignal(res, ctx.closing);
  if (!(await sleep(reply.delayMs ?? 0, signal))) return;
  let ranked = documents
    .map((text, index) => ({ index, text, score: emulatorRelevance(query, text) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const topN = typeof body.top_n === 'number' && body.top_n > 0 ? body.top_n : ranked.length;
  ranked = ranked.slice(0, topN);
  if (await answerSideFault(res, reply.fault, signal)) return;
  switch (reply.fault) {
    case 'wrong_count':
      ranked = ranked.slice(0, -1);
      break;
    case undefined:
      break;
  }
  sendJson(res, 200, {
    id: `rerank-${randomBytes(12).toString('hex')}`,
    model: model.id,
    usage: { total_tokens: pairTokens.reduce((a, b) => a + b, 0) },
    results: ranked.map((r) => ({
      index: r.index,
      document: { text: r.text },
      relevance_score: r.score,
    })),
  });
}
