// Mechanical checks of a label set against the text the project's extractors produce from its
// documents. A set that fails any of them is not scored: a typo in an answer phrase would otherwise
// count as a retrieval miss, and a "paraphrase" that reuses the answer's words would flatter
// lexical search.
//   - every id is unique; an answered question names one of the set's documents;
//   - each of its answer phrases occurs in that document's extracted text (case and whitespace
//     aside);
//   - `paraphrase`: no content word of 4+ letters in common with any answering sentence
//     (lower-cased, no stemming; function words aside, see function-words.ts);
//   - `lexical`: at least one such word in common with the passage around an answer.
import {
  type AnsweredQuestion,
  answersOf,
  type EvalSet,
  isAnswered,
  type LabelledQuestion,
  type Language,
} from './labels.ts';
import { contentWords, locate, type Occurrence } from './text-match.ts';

export interface LabelProblem {
  id: string;
  message: string;
}

function shared(question: string, text: string, language: Language): string[] {
  const mine = contentWords(question, language);
  return [...contentWords(text, language)].filter((w) => mine.has(w));
}

function checkKind(q: AnsweredQuestion, found: Occurrence[], language: Language): string[] {
  if (q.kind === 'paraphrase') {
    const common = [...new Set(found.flatMap((o) => shared(q.question, o.sentence, language)))];
    return common.length === 0
      ? []
      : [`paraphrase shares ${common.map((w) => `"${w}"`).join(', ')} with its answering sentence`];
  }
  const anyShared = found.some((o) => shared(q.question, o.neighbourhood, language).length > 0);
  return anyShared
    ? []
    : ['lexical shares no word of 4+ letters with the passage around its answer (a paraphrase?)'];
}

/**
 * Problems with a set's labels; empty when every label holds. `texts` maps each document's file
 * name to its extracted text (sections joined as the index joins them).
 */
export function checkLabels(set: EvalSet, texts: ReadonlyMap<string, string>): LabelProblem[] {
  const problems: LabelProblem[] = [];
  const languages = new Map(set.documents.map((d) => [d.file, d.language]));
  const seen = new Set<string>();
  const report = (q: LabelledQuestion, message: string) => problems.push({ id: q.id, message });
  for (const q of set.questions) {
    if (seen.has(q.id)) report(q, 'the id is used twice');
    seen.add(q.id);
    if (!isAnswered(q)) continue;
    const language = languages.get(q.file);
    const text = texts.get(q.file);
    if (language === undefined || text === undefined) {
      report(q, `${q.file} is not one of the set's documents`);
      continue;
    }
    const found = answersOf(q).map((phrase) => ({ phrase, at: locate(text, phrase) }));
    const missing = found.filter((f) => f.at.length === 0);
    for (const f of missing)
      report(q, `"${f.phrase}" does not occur in the extracted text of ${q.file}`);
    if (missing.length > 0) continue;
    for (const message of checkKind(
      q,
      found.flatMap((f) => f.at),
      language,
    ))
      report(q, message);
  }
  return problems;
}
