// Texts to vectors through the Embedder, in batches, a bounded number in flight, yielding to the
// event loop between batches so a 300-page file does not hold up other conversations. Whatever the
// endpoint answers is checked: one vector per text, one dimension for all, finite numbers.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Embedder, EmbedPurpose } from '../../llm/embeddings/embedder.ts';
import { EmbeddingError } from '../../llm/embeddings/embedding-error.ts';
import type { Semaphore } from '../../util/semaphore.ts';
import type { Chunk } from './chunk.ts';
import { sentenceStarts, sentenceTexts } from './sentence-vectors.ts';
import { type ChunkVectors, normalised, quantise } from './vectors.ts';

export interface EmbedLimits {
  /** Texts per embedder call. */
  batch: number;
  /** Calls in flight for one file. */
  concurrency: number;
  /** One call's deadline; a call past it fails the whole embedding. */
  timeoutMs: number;
}

/** An answer that cannot be used: wrong count, wrong or mixed dimension, not numbers. */
export function badResponse(message: string): EmbeddingError {
  return new EmbeddingError('bad_response', `embeddings: ${message}`);
}

/** One embedder call under a deadline, its answer checked. */
export async function embedBatch(
  embedder: Embedder,
  texts: readonly string[],
  purpose: EmbedPurpose,
  timeoutMs: number,
  dims?: number,
): Promise<Float32Array[]> {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new EmbeddingError('timeout', `embeddings: no answer within ${timeoutMs} ms`);
      ctl.abort(err);
      reject(err);
    }, timeoutMs);
  });
  try {
    const out = await Promise.race([
      embedder.embed(texts, { purpose, signal: ctl.signal }),
      deadline,
    ]);
    return checked(out, texts.length, dims);
  } finally {
    clearTimeout(timer);
  }
}

function checked(out: unknown, count: number, dims?: number): Float32Array[] {
  if (!Array.isArray(out) || out.length !== count)
    throw badResponse(`${count} texts gave ${Array.isArray(out) ? out.length : 'no'} vectors`);
  const want = dims ?? (out[0] as Float32Array | undefined)?.length ?? 0;
  if (want === 0) throw badResponse('empty vectors');
  for (const v of out as unknown[]) {
    if (!(v instanceof Float32Array) || v.length !== want)
      throw badResponse(`expected ${want} dimensions, got ${(v as { length?: number })?.length}`);
    for (const x of v) if (!Number.isFinite(x)) throw badResponse('a component is not a number');
  }
  return out as Float32Array[];
}

/**
 * Vectors for `texts` in order. `gate` bounds calls across every file this process embeds (five
 * uploads at once still make at most that many calls). Throws on the first failed call.
 */
export async function embedTexts(
  embedder: Embedder,
  texts: readonly string[],
  limits: EmbedLimits,
  gate?: Semaphore,
): Promise<Float32Array[]> {
  const batch = Math.max(1, Math.floor(limits.batch));
  const out: Float32Array[] = new Array(texts.length);
  const starts: number[] = [];
  for (let i = 0; i < texts.length; i += batch) starts.push(i);
  let next = 0;
  let dims: number | undefined;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < starts.length) {
      const from = starts[next++] as number;
      const release = gate ? await gate.acquire() : undefined;
      try {
        if (failed !== undefined) return;
        const slice = texts.slice(from, from + batch);
        const vs = await embedBatch(embedder, slice, 'document', limits.timeoutMs, dims);
        dims ??= vs[0]?.length;
        for (const [k, v] of vs.entries()) out[from + k] = v;
      } catch (err) {
        failed ??= err;
      } finally {
        release?.();
      }
      await nextTurn();
    }
  };
  const n = Math.max(1, Math.min(Math.floor(limits.concurrency), starts.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failed !== undefined) throw failed;
  // Batches that ran at once were each checked alone: one dimension across all of them too.
  if (out.some((v) => v.length !== dims)) throw badResponse('mixed dimensions');
  return out;
}

/** What is embedded for a chunk: its heading gives a passage the context its text assumes. */
export function embeddingText(c: Chunk): string {
  const text = c.heading ? `${c.heading}\n${c.text}` : c.text;
  return text.length > MAX_EMBED_CHARS ? text.slice(0, MAX_EMBED_CHARS) : text;
}

/**
 * The texts embedded for a file's chunks, in order: each whole, overlap included. Leaving the
 * overlap out saved ~10 % of the tokens but moved three lexical questions out of first place in
 * the retrieval evaluation (ARCHITECTURE.md, "Adding a file").
 */
export function embeddingTexts(chunks: readonly Chunk[]): string[] {
  return chunks.map((c) => embeddingText(c));
}

/** A chunk is ~800 characters; a longer text would only be cut by the model's own input limit. */
const MAX_EMBED_CHARS = 2000;

/**
 * One file's chunk vectors, quantised, tagged with the embedder's id; with `sentences`, a vector for
 * each sentence of every chunk of several sentences too, in the same calls.
 */
export async function chunkVectors(
  embedder: Embedder,
  chunks: readonly Chunk[],
  limits: EmbedLimits,
  gate?: Semaphore,
  sentences = false,
): Promise<ChunkVectors> {
  // The id these vectors are tagged with: final before the first call (an HTTP embedder learns
  // its model and dimension from one answer), and unchanged after the last.
  const model = embedder.ready
    ? await embedder.ready(AbortSignal.timeout(limits.timeoutMs))
    : embedder.id;
  const perChunk = sentences ? chunks.map(sentenceTexts) : [];
  const texts = [...embeddingTexts(chunks), ...perChunk.flat()];
  const vectors = (await embedTexts(embedder, texts, limits, gate)).map(normalised);
  if (embedder.id !== model)
    throw badResponse(`the model changed from ${model} to ${embedder.id} meanwhile`);
  if (!sentences) return quantise(model, vectors);
  return quantise(model, vectors.slice(0, chunks.length), {
    starts: sentenceStarts(perChunk.map((t) => t.length)),
    vectors: vectors.slice(chunks.length),
  });
}
