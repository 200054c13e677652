// The knowledge provider's input and output contracts (ARCHITECTURE.md, "Knowledge (Neo4j)"). Field
// names are snake_case on purpose: this is the shape agents, logs and evaluations exchange, not an
// internal object.

/**
 * How candidates are found. `vector` ranks chunks by embedding similarity, `hybrid` fuses that
 * with `fulltext` (reciprocal-rank fusion); both need an embedder and search by words without one.
 * `text2cypher` is off unless configured, and guarded when on.
 */
export type RetrievalMode = 'fulltext' | 'graph' | 'text2cypher' | 'vector' | 'hybrid';

/** Validity of the source at `freshness_required_at`: its own axis, never folded into a score. */
export type Freshness = 'current' | 'stale' | 'unknown';

export interface KnowledgeRequest {
  /** The natural-language question (or search words). */
  query: string;
  /** Who is asking; their groups decide which partitions they may search. */
  principal_id: string;
  /**
   * Partitions this surface may expose, intersected with the principal's own. `'*'` adds no
   * restriction; an empty list permits nothing (fail closed).
   */
  allowed_scopes: readonly string[];
  /** Default: `knowledge.defaultMode`. */
  retrieval_mode?: RetrievalMode;
  /** Budget for the returned items' content plus their citation metadata. */
  max_tokens: number;
  /** Whole-request deadline; every graph query gets at most what is left of it. */
  timeout_ms: number;
  /** ISO-8601 instant freshness is judged at; default: now. */
  freshness_required_at?: string | null;
  trace_id: string;
}

export interface KnowledgeItem {
  /** The claim this item states, or null for a plain passage. */
  claim_id: string | null;
  content: string;
  source_uri: string;
  chunk_id: string;
  /** The document's `source_version`, else its `updated_at`; null when neither is known. */
  document_version: string | null;
  freshness: Freshness;
  /** Node path from the claim (when any) down to the document, e.g. `Chunk:c1`, `Document:uri`. */
  provenance_path: string[];
  /**
   * Scores by retriever: `fulltext` (Lucene), `vector` (cosine similarity of the question's and the
   * chunk's embeddings, -1…1), `fused` (hybrid's reciprocal-rank fusion, which orders the items),
   * `rerank` (a cross-encoder's 0–1, which then orders them),
   * `graph`, `text2cypher`.
   */
  retrieval_scores: Record<string, number>;
}

/** Why something found between candidate search and output was not returned. */
export type DeniedReason =
  /** The principal has no partition left to search (no groups, or none in `allowed_scopes`). */
  | 'no_permitted_partition'
  /** Principal partitions outside `allowed_scopes` (counts partitions, not documents). */
  | 'scope_not_allowed'
  /** Graph-expansion paths through a chunk or document the caller may not see. */
  | 'expansion_not_permitted'
  /** Items that failed the final ACL re-check before output. */
  | 'final_check_failed'
  /** Text2Cypher rows naming chunks the caller may not see, or no chunk at all. */
  | 'text2cypher_not_permitted'
  | 'text2cypher_unverifiable'
  /** Budget steps: same chunk twice, weaker evidence for the same claim, over max_tokens. */
  | 'duplicate_chunk'
  | 'weaker_evidence'
  | 'token_budget';

export interface DeniedEntry {
  reason: DeniedReason;
  count: number;
}

export interface KnowledgeLimits {
  /** Tokens of what was returned (content + metadata), estimated with `estimateTextTokens`. */
  used_tokens: number;
  max_tokens: number;
  elapsed_ms: number;
  timeout_ms: number;
}

/**
 * Why a result is not complete, each with its own message: `unavailable` the graph cannot be
 * reached; `unauthorized` it refused the reader's credentials; `phase_timeout` one step ran past
 * the per-step limit (`phaseTimeoutMs`); `timeout` the request ran past its own `timeout_ms`;
 * `bad_query` the request or the generated query is not valid; `error` anything else.
 */
export type FailureKind =
  | 'timeout'
  | 'phase_timeout'
  | 'unavailable'
  | 'unauthorized'
  | 'bad_query'
  | 'error';

export interface KnowledgeResult {
  answerable: boolean;
  /**
   * The mode that ran: the request's, or `fulltext` when `vector`/`hybrid` had no embedder or fell
   * back (embeddings down, too slow, wrong size, no vectors of the current model).
   */
  retrieval_mode: RetrievalMode;
  items: KnowledgeItem[];
  limits: KnowledgeLimits;
  denied: DeniedEntry[];
  /** Set whenever the result is not a complete answer to the request: it never looks complete. */
  failure?: { kind: FailureKind; message: string };
}
