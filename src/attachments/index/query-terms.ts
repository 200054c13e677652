// A query read in every language that matters for it: its own (detected) and each language the
// searched chunks are in, so a German document asked about in English words still matches. What
// one query word yields under several languages are alternatives of one scoring group, never
// counted twice.
import { analyzerFor, analyzerLang, detectLanguage } from './language.ts';
import { runTerms, scanText, wordTerms } from './tokenize.ts';

/** One scoring group: terms that are alternatives for one piece of one query word. */
export type QueryPart = readonly string[];

/** One query word (or CJK run) and its pieces: the whole word, an identifier's parts, bigrams. */
export interface QueryUnit {
  readonly parts: readonly QueryPart[];
}

export interface AnalysedQuery {
  readonly units: readonly QueryUnit[];
  /** Every term of every part, once. */
  readonly terms: readonly string[];
  /** The analyzer languages the query was read in. */
  readonly langs: readonly string[];
}

/** Distinct query words scored at most: a pasted paragraph as a query stays cheap. */
const MAX_UNITS = 64;

/**
 * `indexLangs` are the analyzer languages of the chunks searched. A word that is a stop word in
 * the query's own language (when detection is sure of it) is dropped in every reading; when it is
 * not sure, a stop word of any reading is dropped.
 */
export function analyseQuery(query: string, indexLangs: Iterable<string>): AnalysedQuery {
  const detected = detectLanguage(query);
  const langs = new Set<string>();
  if (detected.lang) langs.add(analyzerLang(detected.lang));
  for (const l of indexLangs) langs.add(l);
  if (langs.size === 0) langs.add(analyzerLang(undefined));
  const analyzers = [...langs].map((l) => analyzerFor(l));
  const own = detected.confident ? analyzerFor(detected.lang) : undefined;

  const units: Map<string, Set<string>>[] = [];
  const seenWords = new Set<string>();
  const add = (unit: Map<string, Set<string>>, term: string, part: number) => {
    const key = String(part);
    const set = unit.get(key) ?? new Set<string>();
    set.add(term);
    unit.set(key, set);
  };
  scanText(query, (kind, text) => {
    if (units.length >= MAX_UNITS) return;
    const key = `${kind}:${text.toLowerCase()}`;
    if (seenWords.has(key)) return;
    seenWords.add(key);
    const unit = new Map<string, Set<string>>();
    if (kind === 'cjk') runTerms(text, 0, (term, _s, _e, part) => add(unit, term, part));
    else {
      const lower = text.toLowerCase();
      const stop = own ? own.stop.has(lower) : analyzers.some((a) => a.stop.has(lower));
      if (stop) return;
      for (const a of analyzers)
        wordTerms(a, text, 0, (term, _s, _e, part) => add(unit, term, part));
    }
    if (unit.size > 0) units.push(unit);
  });
  const out: QueryUnit[] = units.map((u) => ({ parts: [...u.values()].map((s) => [...s]) }));
  const terms = [...new Set(out.flatMap((u) => u.parts.flat()))];
  return { units: out, terms, langs: [...langs] };
}
