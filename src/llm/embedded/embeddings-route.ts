// POST /v1/embeddings of the embedded server, in vLLM's shapes: `input` as one string or a list,
// vectors as JSON numbers or base64 of little-endian float32, `usage` in tokens, vLLM's errors.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { EmbeddingEngine } from './embedding-engine.ts';
import { describeIssues, modelNotFound, WireError } from './wire.ts';

/** Texts in one request: a bound on the work one request can queue. */
const MAX_INPUTS = 2048;

const embeddingsRequestSchema = z.object({
  model: z.string().nullish(),
  input: z.union([z.string(), z.array(z.string()).min(1).max(MAX_INPUTS)]),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.number().int().positive().nullish(),
  user: z.string().nullish(),
});

function encode(v: Float32Array, format: 'float' | 'base64'): number[] | string {
  if (format === 'float') return Array.from(v);
  const bytes = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) bytes.writeFloatLE(v[i] ?? 0, i * 4);
  return bytes.toString('base64');
}

/** Answers one request's body; throws a WireError for what vLLM refuses. */
export async function embeddingsResponse(
  engine: EmbeddingEngine,
  raw: unknown,
  signal: AbortSignal,
): Promise<{ body: unknown; truncated: number }> {
  const parsed = embeddingsRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const tokenIds = Array.isArray((raw as { input?: unknown } | null)?.input);
    throw new WireError(
      `${describeIssues(parsed.error)}${tokenIds ? ' (token ids are not accepted here: send text)' : ''}`,
    );
  }
  const req = parsed.data;
  if (req.model !== undefined && req.model !== null && req.model !== '' && req.model !== engine.id)
    throw modelNotFound(req.model);
  if (
    req.dimensions !== undefined &&
    req.dimensions !== null &&
    req.dimensions !== engine.dimensions
  )
    throw new WireError(
      `Model "${engine.id}" does not support matryoshka representation, changing output dimensions will lead to poor results.`,
    );
  const texts = typeof req.input === 'string' ? [req.input] : req.input;
  const format = req.encoding_format ?? 'float';
  const { vectors, tokens, truncated } = await engine.embed(texts, signal);
  return {
    truncated,
    body: {
      id: `embd-${randomBytes(12).toString('hex')}`,
      object: 'list',
      created: Math.floor(Date.now() / 1000),
      model: engine.id,
      data: vectors.map((v, index) => ({
        index,
        object: 'embedding',
        embedding: encode(v, format),
      })),
      usage: {
        prompt_tokens: tokens,
        total_tokens: tokens,
        completion_tokens: 0,
        prompt_tokens_details: null,
      },
    },
  };
}
