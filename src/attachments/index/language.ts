// Which language a text is in, and how words of that language become index terms: Snowball
// stemming and stop words. Hangul, Han and Kana are handled by script in tokenize.ts (bigrams),
// whatever language a chunk is detected as.
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { detectAll } from 'tinyld';
import { stopWordsOf } from './stopwords.ts';

/** How the words of one language become terms. */
export interface Analyzer {
  /** ISO 639-1 code, or `und` for a language without stemmer or stop words. */
  readonly lang: string;
  readonly stem: (word: string) => string;
  readonly stop: ReadonlySet<string>;
}

const STEMMERS: Record<string, (w: string) => string> = {
  en: english,
  de: german,
  fr: french,
  es: spanish,
  it: italian,
  nl: dutch,
  pt: portuguese,
};

/** Languages a chunk or query may be detected as: those analysed here, plus the CJK scripts. */
const DETECTABLE = [...Object.keys(STEMMERS), 'ko', 'ja', 'zh'];

/**
 * Latin-script words inside Korean, Japanese or Chinese text, or in text whose language is not
 * known, are mostly technical terms and names: they are read as English.
 */
export const FALLBACK_LANG = 'en';

const analyzers = new Map<string, Analyzer>();

/** The analyzer for Latin-script words of a chunk or query detected as `lang`. */
export function analyzerFor(lang: string | undefined): Analyzer {
  const key = lang !== undefined && lang in STEMMERS ? lang : FALLBACK_LANG;
  let a = analyzers.get(key);
  if (!a) {
    const stem = STEMMERS[key] ?? english;
    a = { lang: key, stem, stop: stopWordsOf(key) };
    analyzers.set(key, a);
  }
  return a;
}

/** The analyzer key a detected language maps to (several detections share the fallback). */
export function analyzerLang(lang: string | undefined): string {
  return analyzerFor(lang).lang;
}

// Detection reads a sample: the start of a chunk tells its language as well as all of it does,
// at a fraction of the cost (tinyld costs ~1 ms per 500 characters).
const SAMPLE_CHARS = 400;
const HANGUL = /\p{sc=Hangul}/gu;
const KANA = /[\p{sc=Hiragana}\p{sc=Katakana}]/gu;
const HAN = /\p{sc=Han}/gu;
const LETTER = /\p{L}/gu;

function share(re: RegExp, text: string, letters: number): number {
  return (text.match(re)?.length ?? 0) / letters;
}

export interface Detected {
  /** ISO 639-1, or '' when the text says too little. */
  lang: string;
  /** True when the best guess clearly beats the next one. */
  confident: boolean;
}

/** The language of a text: by script for CJK, by tinyld among the analysed languages otherwise. */
export function detectLanguage(text: string): Detected {
  const sample = text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text;
  const letters = sample.match(LETTER)?.length ?? 0;
  if (letters === 0) return { lang: '', confident: false };
  if (share(HANGUL, sample, letters) > 0.3) return { lang: 'ko', confident: true };
  if (share(KANA, sample, letters) > 0.1) return { lang: 'ja', confident: true };
  if (share(HAN, sample, letters) > 0.3) return { lang: 'zh', confident: true };
  const [best, next] = detectAll(sample, { only: DETECTABLE });
  if (!best) return { lang: '', confident: false };
  const confident = best.accuracy >= 0.1 && best.accuracy >= 2 * (next?.accuracy ?? 0);
  return { lang: best.lang, confident };
}
