// What a byte-level BPE tokenizer (Qwen, Llama 3, GPT-4 family) charges for, counted without its
// vocabulary. The scan mirrors their pre-tokenizer: text is cut into letter runs, digit runs,
// punctuation runs and whitespace runs, and BPE never merges across those cuts, so counting each
// kind of run predicts the token count for every script. Korean is the exception a count of runs
// cannot see (which words the vocabulary merged decides it), so Hangul is cut against the short
// list of Hangul tokens both vocabularies share (hangul-pieces.ts).
import { HANGUL_SYLLABLES, HANGUL_WORDS } from './hangul-pieces.ts';

/** Feature vector of a text; `estimateTextTokens` is a weighted sum of it. */
export interface TextFeatures {
  /** Latin letter runs (words, identifiers): each costs at least one token. */
  words: number;
  /** Capitals after a run's first letter (acronyms, hashes, base64): they split into short pieces. */
  innerCaps: number;
  /** Letters touching digits (x64, sha512, ids and hashes): no merges across that seam. */
  alnumJoins: number;
  /** Hangul runs (words, often with a particle attached). */
  hangulRuns: number;
  /** A Hangul run cut greedily into words and syllables both vocabularies keep whole... */
  hangulPieces: number;
  /** ...and the syllables left over, which fall apart into byte pieces. */
  hangulRare: number;
  /** Han and kana characters. */
  cjk: number;
  /** Letters of other scripts (Cyrillic, Greek, Arabic, Thai, ...). */
  otherLetters: number;
  /** Digits (Qwen spends a token per digit, Llama 3 one per three). */
  digits: number;
  /** Punctuation and symbol runs not glued to a word, and the characters in them. */
  punctRuns: number;
  punctChars: number;
  /** Line breaks not swallowed by the punctuation before them. */
  newlines: number;
  /** Runs of two or more spaces or tabs (indentation): about one token each. */
  indents: number;
  /** A space before a number is a token of its own (digits take no leading space). */
  spacedNumbers: number;
  /** Emoji and other astral-plane symbols: one to four byte pieces each. */
  emoji: number;
}

export const FEATURE_NAMES = [
  'words',
  'innerCaps',
  'alnumJoins',
  'hangulRuns',
  'hangulPieces',
  'hangulRare',
  'cjk',
  'otherLetters',
  'digits',
  'punctRuns',
  'punctChars',
  'newlines',
  'indents',
  'spacedNumbers',
  'emoji',
] as const satisfies readonly (keyof TextFeatures)[];

const RUN = /(\p{L}[\p{L}\p{M}]*)|(\p{N}+)|(\s+)|([^\s\p{L}\p{N}]+)/gu;
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u;
const CJK = /[\u2e80-\u2fdf\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;
const LATIN = /[A-Za-z\u00c0-\u024f]/u;
const CAPS = /[A-Z]/g;
const ASTRAL = /[\u{1f000}-\u{1faff}\u{2600}-\u{27bf}]/u;

function emptyFeatures(): TextFeatures {
  return {
    words: 0,
    innerCaps: 0,
    alnumJoins: 0,
    hangulRuns: 0,
    hangulPieces: 0,
    hangulRare: 0,
    cjk: 0,
    otherLetters: 0,
    digits: 0,
    punctRuns: 0,
    punctChars: 0,
    newlines: 0,
    indents: 0,
    spacedNumbers: 0,
    emoji: 0,
  };
}

let words: Set<string> | undefined;
let syllables: Set<string> | undefined;
let longestWord = 0;

function addHangul(f: TextFeatures, run: string): void {
  if (!words || !syllables) {
    words = new Set(HANGUL_WORDS.split(' '));
    syllables = new Set(HANGUL_SYLLABLES);
    for (const w of words) longestWord = Math.max(longestWord, w.length);
  }
  f.hangulRuns += 1;
  let i = 0;
  while (i < run.length) {
    let took = 0;
    for (let n = Math.min(longestWord, run.length - i); n >= 2 && took === 0; n--) {
      if (words.has(run.slice(i, i + n))) took = n;
    }
    if (took > 0) {
      f.hangulPieces += 1;
      i += took;
    } else {
      if (syllables.has(run.charAt(i))) f.hangulPieces += 1;
      else f.hangulRare += 1;
      i += 1;
    }
  }
}

/** A letter run may mix scripts ("API는"): each script's stretch is counted on its own. */
function addLetters(f: TextFeatures, run: string): void {
  let latin = 0;
  let hangul = '';
  const flush = (): void => {
    if (latin > 0) f.words += 1;
    if (hangul.length > 0) addHangul(f, hangul);
    latin = 0;
    hangul = '';
  };
  for (const ch of run) {
    if (LATIN.test(ch)) {
      if (hangul.length > 0) flush();
      latin += 1;
    } else if (HANGUL.test(ch)) {
      if (latin > 0) flush();
      hangul += ch;
    } else {
      flush();
      if (CJK.test(ch)) f.cjk += 1;
      else f.otherLetters += 1;
    }
  }
  flush();
  f.innerCaps += run.slice(1).match(CAPS)?.length ?? 0;
}

function addPunct(f: TextFeatures, run: string, glued: boolean): void {
  let plain = 0;
  for (const ch of run) {
    if (ASTRAL.test(ch)) f.emoji += 1;
    else plain += 1;
  }
  if (plain === 0) return;
  // A single symbol right before a word (`.map`, `_id`, `(x`) is part of the word's pre-token.
  if (glued && plain === 1) return;
  f.punctRuns += 1;
  f.punctChars += plain;
}

function addSpace(f: TextFeatures, run: string, afterPunct: boolean, next: string): void {
  const lastBreak = Math.max(run.lastIndexOf('\n'), run.lastIndexOf('\r'));
  // `);\n` is one pre-token: line breaks right after punctuation ride along with it.
  if (lastBreak >= 0 && !afterPunct) f.newlines += 1;
  // Spaces after the last line break: the last one joins the next word, the rest is one token.
  const trailing = run.length - lastBreak - 1;
  if (trailing >= 2) f.indents += 1;
  if (trailing >= 1 && /\p{N}/u.test(next)) f.spacedNumbers += 1;
}

export function textFeatures(text: string): TextFeatures {
  const f = emptyFeatures();
  let prev: 'letter' | 'digit' | 'space' | 'punct' | undefined;
  for (const m of text.matchAll(RUN)) {
    const [whole, letters, digits, space, punct] = m;
    if (letters !== undefined) {
      addLetters(f, letters);
      prev = 'letter';
    } else if (digits !== undefined) {
      f.digits += digits.length;
      if (prev === 'letter') f.alnumJoins += 1;
      if (/\p{L}/u.test(text.charAt(m.index + whole.length))) f.alnumJoins += 1;
      prev = 'digit';
    } else if (space !== undefined) {
      addSpace(f, space, prev === 'punct', text.charAt(m.index + whole.length));
      prev = 'space';
    } else if (punct !== undefined) {
      const next = text.charAt(m.index + whole.length);
      const glued = prev !== 'space' && /\p{L}/u.test(next);
      addPunct(f, punct, glued);
      prev = 'punct';
    }
  }
  return f;
}
