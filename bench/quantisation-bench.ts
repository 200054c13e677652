// What int8 quantisation of chunk vectors costs against float32, on real model vectors of natural
// text: English prose samples (bench/corpora) and the relevance set's sections as documents, the
// relevance questions and prose sentences as queries. Reports recall@10 (the int8 top 10 against
// the float32 top 10) and how far cosines move.

import { cosineAt, normalised, quantise } from '../src/attachments/index/vectors.ts';
import type { Embedder } from '../src/llm/embeddings/embedder.ts';
import { englishProse } from './corpora/english-prose.ts';
import { CALIBRATION_DOCS } from './corpora/relevance-docs.ts';
import { CALIBRATION_QUESTIONS } from './corpora/relevance-questions.ts';

function topK(scores: number[], k: number): number[] {
  return scores
    .map((s, i) => [s, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, i]) => i);
}

export async function benchQuantisation(embedder: Embedder): Promise<string[]> {
  const docs = [
    ...englishProse(0),
    ...englishProse(1),
    ...CALIBRATION_DOCS.flatMap((d) => d.sections.map((s) => s.text)),
  ];
  const queries = [
    ...CALIBRATION_QUESTIONS.map((q) => q.q),
    ...englishProse(2).map((s) => s.split(/(?<=[.?!])\s/)[0] ?? s),
  ];
  const docVectors: Float32Array[] = [];
  for (const d of docs) docVectors.push(...(await embedder.embed([d], { purpose: 'document' })));
  const exact = docVectors.map(normalised);
  const q8 = quantise(embedder.id, exact);
  let overlap = 0;
  let maxDelta = 0;
  let sumDelta = 0;
  let pairs = 0;
  for (const q of queries) {
    const [raw] = await embedder.embed([q], { purpose: 'query' });
    const qv = normalised(raw as Float32Array);
    const f32 = exact.map((v) => v.reduce((s, x, i) => s + x * (qv[i] as number), 0));
    const i8 = exact.map((_, i) => cosineAt(q8, i, qv));
    for (const [i, c] of f32.entries()) {
      const d = Math.abs(c - (i8[i] as number));
      maxDelta = Math.max(maxDelta, d);
      sumDelta += d;
      pairs++;
    }
    const want = new Set(topK(f32, 10));
    overlap += topK(i8, 10).filter((i) => want.has(i)).length / 10;
  }
  return [
    `int8 vs float32 (${embedder.id}, ${docs.length} natural-text chunks, ${queries.length} queries): recall@10 ${(overlap / queries.length).toFixed(3)}; cosine moves by ${(sumDelta / pairs).toFixed(4)} on average, at most ${maxDelta.toFixed(4)}; 388 bytes a 384-dimension vector instead of 1,536`,
  ];
}
