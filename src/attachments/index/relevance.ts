// When a chunk counts as an answer at all. A chunk is found by words when it holds a query word,
// by vectors when its cosine clears the floor; after fusion it is kept when either measure clears
// its floor. When none is left, the files do not cover the question, and search_attachment says
// so instead of handing the model weak passages.
//
// - Words: the chunk's coverage (bm25.ts), the idf-weighted share of the query's words it holds.
//   It depends neither on the embedding model nor on the corpus size.
// - Vectors: the cosine with the query. Its scale belongs to the model (unrelated texts sit near
//   0.1 for all-MiniLM-L6-v2 but near 0.3–0.4 for bge-m3), so it is a setting,
//   `attachments.search.minCosine`, whose default fits the CI model.
//
// Calibration (`npm run bench -- relevance`, on documents and questions written for it in
// bench/corpora/relevance-*.ts, never on the evaluation set): two folds, each floor fitted on one
// half of the questions and measured on the other. A floor must keep the answer among the top 5
// for 90 % of answerable questions — what is cut the model can never use, what passes it can
// still judge — and among those floors the one refusing the most unanswerable questions wins.
// The folds gave coverage 0.65 and 0.35 (mean 0.5) and cosine 0.2 twice. At these floors the
// other half found 18 of 18 answers in hybrid mode but refused only 1–3 of 8 unanswerable
// questions: all-MiniLM-L6-v2 scores paraphrased answers (0.26–0.35) no higher than near misses,
// so the tool leaves those to the model, which is told to say when the passages do not answer.

export interface RelevanceFloor {
  /** Coverage a chunk needs in the word ranking, 0–1. */
  minCoverage: number;
  /** Cosine a chunk needs in the vector ranking. */
  minCosine: number;
}

export const RELEVANCE_DEFAULTS = {
  minCoverage: 0.5,
  minCosine: 0.2,
  /**
   * With a reranker, the only floor: its score (0–1) a passage needs (rerank-stage.ts). Not fitted:
   * no cross-encoder was available to the evaluation; a low start for sigmoid scores.
   */
  minRerankScore: 0.1,
} as const satisfies RelevanceFloor & { minRerankScore: number };
