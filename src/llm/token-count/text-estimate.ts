// Offline token estimate for text: a weighted count of what BPE tokenizers pay for (see
// text-features.ts). "chars / 4" undercounts Korean about threefold and code by a third; these
// weights were fitted by bench/corpora/calibrate.ts against the real Qwen3 and Llama 3 tokenizers
// (the mean of the two, which differ most on Korean, where Llama 3 is ~10% cheaper, and on
// digits) over English and Korean prose, TypeScript, JSON and mixed chat text.
// `npm run bench -- tokens` prints the resulting error per corpus.
import { type TextFeatures, textFeatures } from './text-features.ts';

/** Tokens per feature. Fitted unless marked fixed (scripts the corpora do not cover). */
export const TEXT_WEIGHTS: Readonly<Record<keyof TextFeatures, number>> = {
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

/** Estimated tokens in a piece of text, as a Qwen- or Llama-3-class tokenizer would count them. */
export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  const f = textFeatures(text);
  let total = 0;
  for (const key of Object.keys(TEXT_WEIGHTS) as (keyof TextFeatures)[]) {
    total += TEXT_WEIGHTS[key] * f[key];
  }
  return Math.max(1, Math.round(total));
}
