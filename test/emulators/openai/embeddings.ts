// POST /v1/embeddings as vLLM serves it with `--runner pooling`: the request checks, the error
// shapes, the response (`object: "list"`, `data[].embedding` as numbers or base64 of float32,
// `usage`), and scripted faults. The vectors are the emulator's own deterministic embedding:
// hashed words, unit length, so equal text gives equal vectors and shared words give similar ones.
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { exchangeSignal, sendJson, sleep } from './http.ts';
import { answerSideFault } from './side-faults.ts';
import { countTokens } from './tokenizer.ts';
import type { EmbeddingModelSpec, EmbeddingReply, RequestBody } from './types.ts';
import { errorBody, modelNotFound } from './wire.ts';

export interface EmbeddingsContext {
  embeddingModels: () => EmbeddingModelSpec[];
  takeEmbeddingReply: () => EmbeddingReply;
  closing: AbortSignal;
}

/** The emulator's embedding of one text: hashed lower-cased words, unit length. */
export function emulatorEmbedding(text: string, dims: number): Float32Array {
  const v = new Float32Array(dims);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash('sha1').update(w).digest();
    const i = h.readUInt32LE(0) % dims;
    v[i] = (v[i] ?? 0) + ((h.readUInt8(4) & 1) === 1 ? 1 : -1);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  // A text without words still gets a vector (vLLM embeds anything), on the first axis.
  if (norm === 0) v[0] = 1;
  else for (let i = 0; i < dims; i++) v[i] = (v[i] ?? 0) / Math.sqrt(norm);
  return v;
}

function inputsOf(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((x) => typeof x === 'string')) return input as string[];
  // Token ids (one list, or a list of lists): embedded as their decimal text.
  if (input.every((x) => typeof x === 'number')) return [input.join(' ')];
  if (input.every((x) => Array.isArray(x) && x.every((t) => typeof t === 'number')))
    return (input as number[][]).map((t) => t.join(' '));
  return undefined;
}

function encode(v: Float32Array, format: string): number[] | string {
  if (format === 'base64')
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  return Array.from(v);
}

function resolveEmbeddingModel(models: EmbeddingModelSpec[], name: unknown) {
  return name === undefined || name === null ? models[0] : models.find((m) => m.id === name);
}

export async function handleEmbeddings(
  ctx: EmbeddingsContext,
  res: ServerResponse,
  body: RequestBody,
): Promise<void> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return sendJson(res, 400, errorBody('The request body must be a JSON object.'));
  const model = resolveEmbeddingModel(ctx.embeddingModels(), body.model);
  if (model === undefined) return sendJson(res, 404, modelNotFound(String(body.model)));
  const texts = inputsOf(body.input);
  if (texts === undefined)
    return sendJson(
      res,
      400,
      errorBody(
        "'input' must be a string, a list of strings, or token ids.",
        'BadRequestError',
        400,
        'input',
      ),
    );
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return sendJson(res, 400, errorBody(`Unknown encoding_format '${String(format)}'.`));
  if (
    body.dimensions !== undefined &&
    body.dimensions !== null &&
    body.dimensions !== model.dimensions
  )
    return sendJson(
      res,
      400,
      errorBody(
        `Model "${model.id}" does not support matryoshka representation, changing output dimensions will lead to poor results.`,
      ),
    );
  const tokens = texts.map((t) => countTokens(t) + 2); // the model's own start and end tokens
  const longest = Math.max(...tokens);
  if (longest > model.max_model_len)
    return sendJson(
      res,
      400,
      errorBody(
        `This model's maximum context length is ${model.max_model_len} tokens. However, you requested ${longest} tokens in the input for embedding generation. Please reduce the length of the input.`,
      ),
    );

  const reply = ctx.takeEmbeddingReply();
  const signal = exchangeSignal(res, ctx.closing);
  if (!(await sleep(reply.delayMs ?? 0, signal))) return;
  let dims = model.dimensions;
  let vectors = texts;
  if (await answerSideFault(res, reply.fault, signal)) return;
  switch (reply.fault) {
    case 'wrong_dimension':
      dims = model.dimensions + 1;
      break;
    case 'wrong_count':
      vectors = texts.slice(0, -1);
      break;
    case undefined:
      break;
  }
  const promptTokens = tokens.reduce((a, b) => a + b, 0);
  sendJson(res, 200, {
    id: `embd-${randomBytes(12).toString('hex')}`,
    object: 'list',
    created: Math.floor(Date.now() / 1000),
    model: model.id,
    data: vectors.map((t, index) => ({
      index,
      object: 'embedding',
      embedding: encode(emulatorEmbedding(t, dims), format),
    })),
    usage: {
      prompt_tokens: promptTokens,
      total_tokens: promptTokens,
      completion_tokens: 0,
      prompt_tokens_details: null,
    },
  });
}
