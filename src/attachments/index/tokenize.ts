// Terms for the attachment index. Latin-script text is split into words; Hangul, Han and Kana are
// written without spaces between words (Korean particles attach to the noun), so their runs are
// indexed as overlapping character bigrams: "연차휴가" holds "휴가", which a query for "휴가" finds.

/** A term and where it came from in the NFKC-normalised text (used to place snippets). */
export interface Token {
  term: string;
  start: number;
  end: number;
}

type Emit = (term: string, start: number, end: number) => void;

// Scripts written without spaces; ー (U+30FC) is "Common" but lives inside Katakana words.
const CJK = '\\p{sc=Hangul}\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\u30FC';
// Group 1: a CJK run. Group 2: a word of any other letters/digits (underscore kept for snake_case).
const TOKEN_RE = new RegExp(`([${CJK}]+)|([[\\p{L}\\p{M}\\p{N}_]--[${CJK}]]+)`, 'gv');
// Where an identifier splits: fooBar, HTTPServer, snake_case.
const CAMEL_RE = /\p{Ll}(?=\p{Lu})|\p{Lu}(?=\p{Lu}\p{Ll})/gu;

const STOPWORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her ' +
    'his i if in into is it its me my no not of on or our she so such than that the their them ' +
    'then there these they this those to us was we were what when where which who will with would ' +
    'you your s t'
  ).split(' '),
);

/** Light English plural folding ("policies" → "policy"), applied to documents and queries alike. */
function stem(w: string): string {
  const n = w.length;
  if (n <= 3 || w.charCodeAt(n - 1) !== 115 /* s */) return w;
  for (let i = 0; i < n; i++) {
    const c = w.charCodeAt(i);
    if (c < 97 || c > 122) return w; // only plain a–z words
  }
  if (n > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) return w;
  return w.slice(0, -1);
}

function word(emit: Emit, w: string, start: number): void {
  const lower = w.toLowerCase();
  const term = stem(lower);
  if (!STOPWORDS.has(term)) emit(term, start, start + w.length);
  // Only identifiers (an inner capital or an underscore) are split further.
  const camel = lower.length === w.length && lower.slice(1) !== w.slice(1);
  if (!camel && !w.includes('_')) return;
  const parts = (camel ? w.replace(CAMEL_RE, '$&_') : w).split('_');
  if (parts.length < 2) return;
  let at = start;
  for (const part of parts) {
    if (part.length === 0) {
      at += 1;
      continue;
    }
    const t = stem(part.toLowerCase());
    if (!STOPWORDS.has(t)) emit(t, at, at + part.length);
    // The inserted "_" of a camel split is not in the text; a real one is.
    at += part.length + (camel && w.charCodeAt(at - start + part.length) !== 95 ? 0 : 1);
  }
}

function run(emit: Emit, r: string, start: number): void {
  let prev = -1; // start of the previous code point
  for (let i = 0; i < r.length; ) {
    const c = r.charCodeAt(i);
    // Han extension B and beyond are surrogate pairs: step over whole code points.
    const width = c >= 0xd800 && c <= 0xdbff && i + 1 < r.length ? 2 : 1;
    if (prev >= 0) emit(r.slice(prev, i + width), start + prev, start + i + width);
    prev = i;
    i += width;
  }
  if (prev === 0) emit(r, start, start + r.length); // a one-character run stands alone
}

function scan(text: string, emit: Emit): void {
  const norm = text.normalize('NFKC');
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(norm); m !== null; m = TOKEN_RE.exec(norm)) {
    if (m[1] !== undefined) run(emit, m[1], m.index);
    else if (m[2] !== undefined) {
      const w = m[2];
      if (w.charCodeAt(0) === 95 || w.charCodeAt(w.length - 1) === 95) {
        const trimmed = w.replace(/^_+/, '');
        const lead = w.length - trimmed.length;
        const core = trimmed.replace(/_+$/, '');
        if (core.length > 0) word(emit, core, m.index + lead);
      } else word(emit, w, m.index);
    }
  }
}

/** Terms with offsets into `text.normalize('NFKC')`. */
export function tokenizeWithOffsets(text: string): Token[] {
  const out: Token[] = [];
  scan(text, (term, start, end) => out.push({ term, start, end }));
  return out;
}

/** NFKC + lower-case terms: words for Latin-like scripts, character bigrams for CJK runs. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  scan(text, (term) => out.push(term));
  return out;
}
