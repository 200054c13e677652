// The least-squares fit behind the weights of estimateTextTokens, shared by calibrate.ts (which
// prints weights to copy into text-estimate.ts) and the token bench (which refits on half of each
// corpus to report held-out error). Deterministic: same corpora, same tokenizers, same weights.
import { loadLocalTokenizer } from '../../src/llm/token-count/local-tokenizer.ts';
import { type TextWeights, textWeightsFor } from '../../src/llm/token-count/text-estimate.ts';
import {
  FEATURE_NAMES,
  type TextFeatures,
  textFeatures,
} from '../../src/llm/token-count/text-features.ts';
import { corpora } from './index.ts';

type Feature = (typeof FEATURE_NAMES)[number];

/** What the weights are fitted to: one tokenizer's counts, or the mean of the two. */
export type FitTarget = 'qwen' | 'llama' | 'mean';

export interface FitRow {
  corpus: string;
  /** Position of the sample in its corpus (the held-out split uses its parity). */
  index: number;
  text: string;
  features: TextFeatures;
  qwen: number;
  llama: number;
}

/** Held at a set value rather than fitted: the corpora have little or none of them. */
export const FIXED_FEATURES: readonly Feature[] = ['cjk', 'otherLetters', 'newlines', 'emoji'];

/** The fixed weights of a target as text-estimate.ts has them. */
export function fixedWeights(target: FitTarget): Partial<Record<Feature, number>> {
  const current = textWeightsFor(target === 'mean' ? undefined : target);
  return Object.fromEntries(FIXED_FEATURES.map((k) => [k, current[k]]));
}

export function targetCount(r: FitRow, target: FitTarget): number {
  return target === 'mean' ? (r.qwen + r.llama) / 2 : r[target];
}

/** Every corpus sample with its features and real counts; undefined without the tokenizers. */
export async function loadRows(): Promise<FitRow[] | undefined> {
  const qwen = await loadLocalTokenizer('qwen');
  const llama = await loadLocalTokenizer('llama');
  if (!qwen || !llama) return undefined;
  const rows: FitRow[] = [];
  for (const c of corpora()) {
    c.samples.forEach((text, index) => {
      const features = textFeatures(text);
      rows.push({
        corpus: c.name,
        index,
        text,
        features,
        qwen: qwen.countText(text),
        llama: llama.countText(text),
      });
    });
  }
  return rows;
}

/** Gauss-Jordan with partial pivoting; a column with no data gets weight 0. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] ?? 0]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    const piv = m[c]![c]!;
    if (Math.abs(piv) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / piv;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
}

/**
 * Weights minimising the squared relative error against the target's counts, with `fixed`
 * weights held (scripts the corpora do not cover). Rounded to three decimals, as they are stored.
 */
export function fitWeights(
  rows: readonly FitRow[],
  target: FitTarget,
  fixed: Partial<Record<Feature, number>>,
): TextWeights {
  const free = FEATURE_NAMES.map((k, i) => [k, i] as const).filter(([k]) => fixed[k] === undefined);
  const xs = rows.map((r) => FEATURE_NAMES.map((k) => r.features[k]));
  const used = free.filter(([, i]) => xs.some((x) => (x[i] ?? 0) > 0));
  const ata = used.map(() => used.map(() => 0));
  const atb = used.map(() => 0);
  rows.forEach((r, n) => {
    const x = xs[n] ?? [];
    const y = targetCount(r, target);
    const held = FEATURE_NAMES.reduce((s, k, i) => s + (fixed[k] ?? 0) * (x[i] ?? 0), 0);
    const w = 1 / (y * y); // relative error, so short samples count as much as long ones
    used.forEach(([, i], a) => {
      atb[a]! += w * (x[i] ?? 0) * (y - held);
      used.forEach(([, j], b) => {
        ata[a]![b]! += w * (x[i] ?? 0) * (x[j] ?? 0);
      });
    });
  });
  const sol = solve(ata, atb);
  const weights = {} as Record<Feature, number>;
  for (const k of FEATURE_NAMES) weights[k] = fixed[k] ?? 0;
  used.forEach(([k], a) => {
    weights[k] = Math.round((sol[a] ?? 0) * 1000) / 1000;
  });
  return weights;
}
