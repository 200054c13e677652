// Turns a question into a Lucene query for the fulltext index. Only letters and digits survive,
// lower-cased, so nothing in the question can act as Lucene syntax (AND, field:, wildcards, `~`).

const MAX_TERMS = 32;
const WORD = /[\p{L}\p{N}]+/gu;

/** The question's words joined with spaces (Lucene's default OR), or '' when it has none. */
export function luceneQuery(question: string): string {
  const terms = new Set<string>();
  for (const m of question.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    terms.add(m[0]);
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms].join(' ');
}
