// The question's embedding for `vector` and `hybrid` search. It starts with the request (beside the
// principal lookup) and never throws: a failure is a reason to search by words, with a message that
// stays the same from one request to the next so the fallback log can say it once a minute.
import type { Embedder } from '../llm/embeddings/embedder.ts';
import { withDeadline } from '../util/deadline.ts';

export type QueryVector =
  | { ok: true; vector: number[]; model: string; ms: number }
  | { ok: false; reason: Error };

export interface QueryVectorOptions {
  timeoutMs: number;
  /** Expected size; 0: any. */
  dimensions: number;
  /** Aborted when the request is over (the embedding is no longer wanted). */
  signal: AbortSignal;
}

class EmbeddingTimeout extends Error {}

function failure(message: string, cause?: unknown): QueryVector {
  return { ok: false, reason: new Error(message, cause === undefined ? {} : { cause }) };
}

export async function embedQuery(
  embedder: Embedder,
  text: string,
  o: QueryVectorOptions,
): Promise<QueryVector> {
  const started = performance.now();
  let out: unknown;
  try {
    out = await withDeadline(
      (signal) =>
        embedder.embed([text], {
          purpose: 'query',
          signal: AbortSignal.any([signal, o.signal]),
        }),
      o.timeoutMs,
      () => new EmbeddingTimeout('the question was not embedded in time'),
    );
  } catch (err) {
    if (err instanceof EmbeddingTimeout)
      return failure(`the question's embedding took longer than ${o.timeoutMs} ms`, err);
    const why = err instanceof Error ? err.message : String(err);
    return failure(`the question could not be embedded: ${why}`, err);
  }
  const v: unknown = Array.isArray(out) && out.length === 1 ? out[0] : undefined;
  if (!(v instanceof Float32Array) || v.length === 0)
    return failure('the embedder did not answer with one vector for the question');
  if (o.dimensions > 0 && v.length !== o.dimensions)
    return failure(
      `the question's embedding has ${v.length} dimensions, not ${o.dimensions} (knowledge.embeddingDimensions)`,
    );
  const vector = Array.from(v);
  if (!vector.every(Number.isFinite)) return failure("the question's embedding is not finite");
  return { ok: true, vector, model: embedder.id, ms: performance.now() - started };
}

/** Cosine similarity; 0 when either vector is zero or their sizes differ. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
