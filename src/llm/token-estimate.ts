// Offline token estimates. Per-script ratios, because "chars / 4" undercounts Hangul and CJK text
// several times over: BPE vocabularies spend roughly one token per Hangul syllable or Han character,
// while English averages about four characters a token.

const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;
const CJK = /[\u2e80-\u2fdf\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** Estimated tokens in a piece of text; never below the number of words. */
export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  let dense = 0;
  let latinRun = 0;
  let tokens = 0;
  const flushLatin = () => {
    if (latinRun > 0) tokens += Math.ceil(latinRun / 4);
    latinRun = 0;
  };
  for (const ch of text) {
    if (HANGUL.test(ch) || CJK.test(ch)) {
      flushLatin();
      dense += 1;
    } else if (/[\p{L}\p{N}]/u.test(ch)) {
      latinRun += 1;
    } else if (/\s/.test(ch)) {
      flushLatin();
    } else {
      // Punctuation and symbols (code, JSON) mostly cost a token each.
      flushLatin();
      tokens += 1;
    }
  }
  flushLatin();
  return tokens + dense;
}
