// Offline token estimate for text: a weighted count of what BPE tokenizers pay for (see
// text-features.ts). "chars / 4" undercounts Korean about threefold and code by a third; these
// weights were fitted by bench/corpora/calibrate.ts against the real Qwen3 and Llama 3 tokenizers
// over English and Korean prose, TypeScript, JSON and mixed chat text. The two differ most on
// digits (Qwen spends a token per digit, Llama 3 one per three) and on Korean (Llama 3 is ~10%
// cheaper), so a model whose family is known gets weights fitted to its own tokenizer; anything
// else gets weights fitted to the mean of the two.
// `node bench/token-bench.ts` prints the resulting error per corpus and tokenizer.
import { LRUCache } from 'lru-cache';
import type { ModelFamily } from './local-tokenizer.ts';
import { FEATURE_NAMES, type TextFeatures, textFeatures } from './text-features.ts';

export type TextWeights = Readonly<Record<keyof TextFeatures, number>>;

/**
 * Tokens per feature, fitted to the mean of Qwen3 and Llama 3: for a model of unknown family.
 * Fitted unless marked fixed (scripts the corpora do not cover).
 */
export const TEXT_WEIGHTS: TextWeights = {
  words: 1.022,
  innerCaps: 0.474,
  alnumJoins: 0.372,
  hangulRuns: 0.508,
  hangulPieces: 0.823,
  hangulRare: 1.487,
  // Fixed: Chinese costs Qwen ~0.5–0.8 a character and Llama 3 ~0.8–1.2; kana similar.
  cjk: 0.9,
  // Fixed: Cyrillic, Greek, Arabic and the like run two to three letters a token.
  otherLetters: 0.45,
  digits: 0.619,
  punctRuns: 0.904,
  punctChars: 0.067,
  // Fixed: a line break is one pre-token, hence one token.
  newlines: 1,
  indents: 0.94,
  spacedNumbers: 1.892,
  // Fixed: one token in Qwen, two or three byte pieces in Llama 3.
  emoji: 2,
};

// Per-family weights: `node bench/corpora/calibrate.ts qwen` (and `llama`). The fixed ones were
// measured on a few Chinese and Japanese sentences (cjk) and emoji after a space (emoji: two to
// three tokens in both, the space included); Qwen's Greek (a token a letter) is not modelled.

/** Fitted to Qwen3 (Qwen 1.5–3 share its vocabulary). */
export const QWEN_TEXT_WEIGHTS: TextWeights = {
  words: 1.023,
  innerCaps: 0.459,
  alnumJoins: 0.264,
  hangulRuns: 0.748,
  hangulPieces: 0.785,
  hangulRare: 1.071,
  cjk: 0.65,
  otherLetters: 0.45,
  digits: 0.921,
  punctRuns: 0.897,
  punctChars: 0.064,
  newlines: 1,
  indents: 0.951,
  spacedNumbers: 1.837,
  emoji: 2,
};

/** Fitted to Llama 3 (3.0–3.3 share its vocabulary). */
export const LLAMA_TEXT_WEIGHTS: TextWeights = {
  words: 1.021,
  innerCaps: 0.483,
  alnumJoins: 0.48,
  hangulRuns: 0.279,
  hangulPieces: 0.854,
  hangulRare: 1.891,
  cjk: 0.8,
  otherLetters: 0.45,
  digits: 0.318,
  punctRuns: 0.911,
  punctChars: 0.07,
  newlines: 1,
  indents: 0.929,
  spacedNumbers: 1.947,
  emoji: 2,
};

/** The weights for a model family; 'other' and undefined get the averaged ones. */
export function textWeightsFor(family?: ModelFamily): TextWeights {
  if (family === 'qwen') return QWEN_TEXT_WEIGHTS;
  if (family === 'llama') return LLAMA_TEXT_WEIGHTS;
  return TEXT_WEIGHTS;
}

/** The weighted sum of a text's features, at least one token (empty text is handled by callers). */
export function tokensFromFeatures(f: TextFeatures, weights: TextWeights): number {
  let total = 0;
  for (const key of FEATURE_NAMES) total += weights[key] * f[key];
  return Math.max(1, Math.round(total));
}

/**
 * Estimated tokens in a piece of text, as the family's tokenizer would count them; without a
 * family (or 'other'), as a Qwen- or Llama-3-class tokenizer would on average.
 */
export function estimateTextTokens(text: string, family?: ModelFamily): number {
  if (text.length === 0) return 0;
  if (text.length < MEMO_MIN_CHARS)
    return tokensFromFeatures(textFeatures(text), textWeightsFor(family));
  return memo.get(text, family ?? 'other');
}

/** Shorter texts are cheaper to estimate than to look up. */
const MEMO_MIN_CHARS = 256;

/**
 * Estimates of the texts seen lately, per family. Every turn estimates its thread's whole history,
 * the system prompt and the tool schemas again (and once more per model call, to fit the window):
 * each of those texts is estimated once, then looked up. Bounded by the characters it holds.
 */
const memos = new Map<ModelFamily, LRUCache<string, number>>();

const memo = {
  get(text: string, family: ModelFamily): number {
    let cache = memos.get(family);
    if (!cache) {
      cache = new LRUCache<string, number>({
        maxSize: 2_000_000,
        sizeCalculation: (_tokens, key) => key.length,
      });
      memos.set(family, cache);
    }
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const tokens = tokensFromFeatures(textFeatures(text), textWeightsFor(family));
    if (text.length <= 250_000) cache.set(text, tokens);
    return tokens;
  },
};
