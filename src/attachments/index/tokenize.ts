// Terms for the attachment index. Latin-like scripts are split into words, and each word is read in
// its chunk's language (language.ts: stop words, Snowball stem). Hangul, Han and Kana are written
// without spaces between words (Korean particles attach to the noun), so their runs are indexed as
// overlapping character bigrams: "연차휴가" holds "휴가", which a query for "휴가" finds. A Hangul
// word that is a Korean stop word as a whole ("그리고", "및") is left out.
import { type Analyzer, analyzerFor } from './language.ts';
import { stopWordsOf } from './stopwords.ts';

/** A term and where it came from in the NFKC-normalised text. */
export interface Token {
  term: string;
  start: number;
  end: number;
}

/** `part` numbers the terms one word or run yields: 0 the whole word, then its pieces. */
export type Emit = (term: string, start: number, end: number, part: number) => void;

// Scripts written without spaces; ー (U+30FC) is "Common" but lives inside Katakana words.
const CJK = '\\p{sc=Hangul}\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\u30FC';
// Group 1: a CJK run. Group 2: a word of any other letters/digits (underscore kept for snake_case).
const TOKEN_RE = new RegExp(`([${CJK}]+)|([[\\p{L}\\p{M}\\p{N}_]--[${CJK}]]+)`, 'gv');
// Where an identifier splits: fooBar, HTTPServer, snake_case.
const CAMEL_RE = /\p{Ll}(?=\p{Lu})|\p{Lu}(?=\p{Lu}\p{Ll})/gu;
const LETTERS_ONLY = /^\p{L}+$/u;
const HANGUL = /\p{sc=Hangul}/u;
const KOREAN_STOP = stopWordsOf('ko');

// Stemming the same word again is the common case (a document repeats its vocabulary); a bounded
// memo per language saves most of the Snowball work.
const MEMO_LIMIT = 50_000;
const memos = new Map<string, Map<string, string>>();

/** The index form of one lower-case word that is not a stop word. */
export function stemWord(a: Analyzer, lower: string): string {
  if (!LETTERS_ONLY.test(lower)) return lower; // numbers, versions, identifiers stay as written
  let memo = memos.get(a.lang);
  if (!memo) {
    memo = new Map();
    memos.set(a.lang, memo);
  }
  let stem = memo.get(lower);
  if (stem === undefined) {
    stem = a.stem(lower);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(lower, stem);
  }
  return stem;
}

/** The terms of one Latin-like word: the word itself, then an identifier's parts. */
export function wordTerms(a: Analyzer, w: string, start: number, emit: Emit): void {
  const lower = w.toLowerCase();
  // Only identifiers (an inner capital or an underscore) are split further; whole, they are
  // names and stay as written.
  const camel = lower.length === w.length && lower.slice(1) !== w.slice(1);
  const identifier = camel || w.includes('_');
  if (!a.stop.has(lower)) emit(identifier ? lower : stemWord(a, lower), start, start + w.length, 0);
  if (!identifier) return;
  const parts = (camel ? w.replace(CAMEL_RE, '$&_') : w).split('_');
  if (parts.length < 2) return;
  let at = start;
  let n = 0;
  for (const part of parts) {
    if (part.length === 0) {
      at += 1;
      continue;
    }
    const p = part.toLowerCase();
    n += 1;
    if (!a.stop.has(p)) emit(stemWord(a, p), at, at + part.length, n);
    // The inserted "_" of a camel split is not in the text; a real one is.
    at += part.length + (camel && w.charCodeAt(at - start + part.length) !== 95 ? 0 : 1);
  }
}

/** The bigrams of a CJK run; a one-character run stands alone. */
export function runTerms(r: string, start: number, emit: Emit): void {
  if (HANGUL.test(r) && KOREAN_STOP.has(r)) return;
  let prev = -1; // start of the previous code point
  let n = 0;
  for (let i = 0; i < r.length; ) {
    const c = r.charCodeAt(i);
    // Han extension B and beyond are surrogate pairs: step over whole code points.
    const width = c >= 0xd800 && c <= 0xdbff && i + 1 < r.length ? 2 : 1;
    if (prev >= 0) emit(r.slice(prev, i + width), start + prev, start + i + width, n++);
    prev = i;
    i += width;
  }
  if (prev === 0) emit(r, start, start + r.length, 0);
}

export type Visit = (kind: 'word' | 'cjk', text: string, start: number) => void;

/** Words and CJK runs of `text.normalize('NFKC')`, with their offsets in that form. */
export function scanText(text: string, visit: Visit): void {
  const norm = text.normalize('NFKC');
  const re = new RegExp(TOKEN_RE); // own lastIndex: safe if a visitor scans too
  for (let m = re.exec(norm); m !== null; m = re.exec(norm)) {
    if (m[1] !== undefined) visit('cjk', m[1], m.index);
    else if (m[2] !== undefined) {
      const w = m[2];
      if (w.charCodeAt(0) === 95 || w.charCodeAt(w.length - 1) === 95) {
        const trimmed = w.replace(/^_+/, '');
        const lead = w.length - trimmed.length;
        const core = trimmed.replace(/_+$/, '');
        if (core.length > 0) visit('word', core, m.index + lead);
      } else visit('word', w, m.index);
    }
  }
}

function analyse(text: string, lang: string | undefined, emit: Emit): void {
  const a = analyzerFor(lang);
  scanText(text, (kind, t, start) => {
    if (kind === 'cjk') runTerms(t, start, emit);
    else wordTerms(a, t, start, emit);
  });
}

/** Terms with offsets into `text.normalize('NFKC')`, words read in language `lang`. */
export function tokenizeWithOffsets(text: string, lang?: string): Token[] {
  const out: Token[] = [];
  analyse(text, lang, (term, start, end) => out.push({ term, start, end }));
  return out;
}

/** NFKC + lower-case terms: stemmed words without stop words, character bigrams for CJK runs. */
export function tokenize(text: string, lang?: string): string[] {
  const out: string[] = [];
  analyse(text, lang, (term) => out.push(term));
  return out;
}
