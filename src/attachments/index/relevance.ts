// When a chunk counts as an answer at all. Each ranking keeps only chunks above its floor before
// fusion; when none is left, the files do not cover the question, and search_attachment says so
// instead of handing the model weak passages to stitch together.
//
// - Words: the chunk's coverage (bm25.ts), the idf-weighted share of the query's words it holds.
//   It does not depend on the embedding model or the corpus size, so one floor serves every
//   deployment.
// - Vectors: the cosine with the query. Its scale belongs to the model (unrelated texts sit near
//   0.1 for all-MiniLM-L6-v2 but near 0.3–0.4 for bge-m3), so the floor is a setting,
//   `attachments.search.minCosine`, whose default fits the CI model.
//
// Both defaults come from `npm run bench -- relevance`: documents and questions written for it
// (bench/corpora/relevance-set.ts), fitted on half the questions and reported on the other half.

export interface RelevanceFloor {
  /** Coverage a chunk needs in the word ranking, 0–1. */
  minCoverage: number;
  /** Cosine a chunk needs in the vector ranking. */
  minCosine: number;
}

export const RELEVANCE_DEFAULTS = {
  minCoverage: 0.5,
  minCosine: 0.3,
} as const satisfies RelevanceFloor;

/** No floor: every ranked chunk is kept (for measuring ranking alone). */
export const NO_FLOOR: RelevanceFloor = { minCoverage: 0, minCosine: -1 };
