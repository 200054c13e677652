// Turns a question into a Lucene query for the fulltext index. Only letters and digits survive,
// lower-cased, so nothing in the question can act as Lucene syntax (AND, field:, wildcards, `~`).
//
// A narrow reader's query (`narrowLucene`) also names the reader's partitions, so the index
// returns only chunks of those partitions instead of every match for the ACL filter to wade
// through. It runs on the index that holds the partitions beside the text (`FULLTEXT_ACL_INDEX`):
// the words go to `text`, each partition is a phrase on `acl_partitions` or `acl_partition`, boosted
// by 0 so a chunk's score is its words' alone. The index's analyzer splits a partition name into
// words exactly as it split the stored one, so the phrase matches every chunk of that partition
// (and possibly a few more, which the ACL filter after the index drops). The one way a name could be
// lost is a name made only of stop words or signs (no word left to match): such a reader is given
// no partition clause at all.

const MAX_TERMS = 32;
const WORD = /[\p{L}\p{N}]+/gu;
/** More partitions than this: the clause is no cheaper than the filter after the index. */
const MAX_PARTITIONS = 100;
/** The stop words the `cjk` analyzer (Lucene's CJKAnalyzer) drops. */
const STOP = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);
const KEPT = /[\p{L}\p{Nd}]+/gu;

/** The question's words joined with spaces (Lucene's default OR), or '' when it has none. */
export function luceneQuery(question: string): string {
  const terms = new Set<string>();
  for (const m of question.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    terms.add(m[0]);
    if (terms.size >= MAX_TERMS) break;
  }
  return [...terms].join(' ');
}

/** True when the analyzer surely keeps a word of `text` (a letter or digit run that is no stop word). */
export function keepsAWord(text: string): boolean {
  // Java lower-cases U+0130 to a plain i, JavaScript to i + a combining dot.
  const folded = text
    .normalize('NFKC')
    .replace(/\u0130/g, 'I')
    .toLowerCase();
  for (const m of folded.matchAll(KEPT)) if (!STOP.has(m[0])) return true;
  return false;
}

const phrase = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * `lucene` (from `luceneQuery`) restricted to chunks of `partitions`, for the ACL index; undefined
 * when it cannot be said safely (no kept word in the question or in a partition name, too many
 * partitions): then the query runs unrestricted on the text index.
 */
export function narrowLucene(lucene: string, partitions: readonly string[]): string | undefined {
  if (partitions.length === 0 || partitions.length > MAX_PARTITIONS) return undefined;
  if (!keepsAWord(lucene) || !partitions.every(keepsAWord)) return undefined;
  const names = partitions.flatMap((p) => [
    `acl_partitions:${phrase(p)}`,
    `acl_partition:${phrase(p)}`,
  ]);
  return `+text:(${lucene}) +(${names.join(' ')})^0`;
}
