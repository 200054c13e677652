// How labels meet text: the normal form phrases are compared in, where a phrase sits in a
// document (its sentence and a passage-sized neighbourhood), and a question's content words.
import { FUNCTION_WORDS } from './function-words.ts';
import type { Language } from './labels.ts';

/** Case, width, curly quotes and runs of whitespace don't matter when a phrase is looked for. */
export function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/[“”„]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

export function contains(haystack: string, phrase: string): boolean {
  return normalise(haystack).includes(normalise(phrase));
}

/** Letters in a word: Hangul counts its jamo, so a Korean word is measured like an alphabet's. */
function letterCount(word: string): number {
  return [...word.normalize('NFD')].filter((c) => /\p{L}/u.test(c)).length;
}

/**
 * Lower-cased words of 4+ letters that are not function words, compared as they are (no stemming:
 * "refund" and "refunds" are different words). Letters only: digits and punctuation split words.
 */
export function contentWords(text: string, language: Language): Set<string> {
  const skip = new Set([...FUNCTION_WORDS.en, ...FUNCTION_WORDS[language]]);
  const out = new Set<string>();
  for (const w of text
    .normalize('NFKC')
    .toLowerCase()
    .match(/\p{L}+/gu) ?? []) {
    if (letterCount(w) >= 4 && !skip.has(w)) out.add(w);
  }
  return out;
}

// A sentence ends at . ! ? (or 。) before whitespace, or at a blank line. PDF and DOCX text has few
// blank lines, so there a heading or list runs into the next sentence: the paraphrase check then
// compares against more words, never fewer.
const SENTENCE_BREAK = /(?<=[.!?。])\s+|\n[ \t]*\n/;

/** Characters either side of a phrase that stand for "the passage around it". */
export const NEIGHBOURHOOD_CHARS = 300;

export interface Occurrence {
  /** The sentence, or sentences, the phrase lies in. */
  sentence: string;
  /** The phrase with NEIGHBOURHOOD_CHARS either side. */
  neighbourhood: string;
}

/** Every place the phrase occurs in a document's text (normalised), in order. */
export function locate(documentText: string, phrase: string): Occurrence[] {
  const parts = documentText.split(SENTENCE_BREAK).map(normalise).filter(Boolean);
  const starts: number[] = [];
  let pos = 0;
  for (const p of parts) {
    starts.push(pos);
    pos += p.length + 1;
  }
  const joined = parts.join(' ');
  const needle = normalise(phrase);
  const found: Occurrence[] = [];
  if (!needle) return found;
  for (let at = joined.indexOf(needle); at >= 0; at = joined.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    const first = starts.findLastIndex((s) => s <= at);
    const last = starts.findLastIndex((s) => s < end);
    found.push({
      sentence: parts.slice(first, last + 1).join(' '),
      neighbourhood: joined.slice(Math.max(0, at - NEIGHBOURHOOD_CHARS), end + NEIGHBOURHOOD_CHARS),
    });
  }
  return found;
}
