// The vector side of candidate search, read-only like the rest. A k-nearest-neighbour query returns
// its top k before any ACL filter, so the ACL cannot sit between the index and LIMIT as it does for
// fulltext: the query asks for k neighbours, keeps the visible ones (the same `visibleCypher` as
// fulltext), and the caller widens k while too few are visible (`vector-search.ts`). The model id
// is filtered inside the index where the server can (Neo4j 2026.01+: `SEARCH … WHERE`), else right
// after it, so a vector made by another model is never compared.
import { int } from 'neo4j-driver';
import { inPartitionCypher, visibleCypher } from './acl.ts';
import { type ChunkHit, CLAIMS, DOC, type ScoredHit } from './graph-queries.ts';
import type { Query, Row } from './read-runner.ts';

export const VECTOR_INDEX = 'chunk_embedding';
/**
 * The same vectors beside `embedding_model` and `acl_key` (the chunk's partitions as one string),
 * so a reader who may see little has their partitions filtered inside the index (`vector-plan.ts`).
 */
export const VECTOR_ACL_INDEX = 'chunk_embedding_acl';

/** Between a chunk's partitions in `acl_key`: a character no group or partition name holds. */
const KEY_SEPARATOR = '\u001f';

/** A node's partitions as one string, as `aclKeyCypher` writes it (each name after a separator). */
export function aclKeyOf(partitions: readonly string[]): string {
  return partitions.map((p) => `${KEY_SEPARATOR}${p}`).join('');
}

/** `aclKeyOf` in Cypher, over a list expression (null when the list holds a null). */
export function aclKeyCypher(list: string): string {
  return `reduce(k = '', p IN ${list} | k + '\\u001f' + p)`;
}

/** Which index a search asks: every chunk of the model, or only the chunks of the given `acl_key`s. */
export type VectorIndexPlan = 'broad' | 'narrow';

/** How a server is asked for nearest neighbours: Cypher 25's `SEARCH` clause, or the procedure. */
export type VectorSyntax = 'search' | 'procedure';

/** `SEARCH` with in-index filters arrived in Neo4j 2026.01 (calendar versions); 5.x has the procedure. */
export function vectorSyntaxOf(kernelVersion: string): VectorSyntax {
  const major = Number.parseInt(kernelVersion, 10);
  return Number.isFinite(major) && major >= 2026 ? 'search' : 'procedure';
}

/** `IN` inside the search's filter arrived in Neo4j 2026.06: the ACL index needs it. */
export function aclFilterOf(kernelVersion: string): boolean {
  const [major = Number.NaN, minor = Number.NaN] = kernelVersion
    .split('.')
    .map((n) => Number.parseInt(n, 10));
  return major > 2026 || (major === 2026 && minor >= 6);
}

/** The server's kernel version, e.g. `2026.08.1` or `5.26.0`. */
export async function kernelVersion(query: Query): Promise<string> {
  const rows = await query(
    "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v",
  );
  return String(rows[0]?.v ?? '');
}

/** Index similarity is (1 + cos) / 2 for the cosine function; callers see the cosine itself. */
export const cosineOfScore = (score: number): number => 2 * score - 1;

const HIT_ROW = `{chunk_id: c.chunk_id, text: c.text, acl_partition: c.acl_partition,
  doc: d ${DOC}, claims: ${CLAIMS}, score: vector.similarity.cosine(c.embedding, $vector)}`;

function neighbours(syntax: VectorSyntax, plan: VectorIndexPlan): string {
  if (plan === 'narrow')
    return `CYPHER 25
MATCH (c:Chunk)
  SEARCH c IN (VECTOR INDEX ${VECTOR_ACL_INDEX} FOR $vector
    WHERE c.embedding_model = $model AND c.acl_key IN $keys LIMIT $k)
  SCORE AS score`;
  return syntax === 'search'
    ? `CYPHER 25
MATCH (c:Chunk)
  SEARCH c IN (VECTOR INDEX ${VECTOR_INDEX} FOR $vector WHERE c.embedding_model = $model LIMIT $k)
  SCORE AS score`
    : `CALL db.index.vector.queryNodes('${VECTOR_INDEX}', $k, $vector) YIELD node AS c, score`;
}

/**
 * The `k` nearest chunks, then the visible ones among them (best first, at most `limit`).
 * `fetched` is how many the index returned (fewer than `k`: it has no more), `matched` how many of
 * those the current model made, `visible` how many of those the caller may see. Only the `limit`
 * best visible rows are read further (text, document, claims, and the score recomputed exactly
 * from the stored vector): a reader who sees everything has k = 2 × limit visible rows, and
 * reading the rest would be thrown away. `narrow` asks the ACL index for the chunks of `$keys`
 * only; the same filter runs after it.
 */
export function neighbourCypher(syntax: VectorSyntax, plan: VectorIndexPlan = 'broad'): string {
  return `${neighbours(syntax, plan)}
WITH collect({c: c, score: score}) AS found
CALL (found) {
  UNWIND found AS f
  WITH f.c AS c, f.score AS score
  WHERE c.embedding_model = $model AND ${inPartitionCypher('c')}
  MATCH (c)-[:PART_OF]->(d:Document)
  WHERE ${visibleCypher('c', 'd')}
  WITH c, d, score ORDER BY score DESC
  WITH collect({c: c, d: d}) AS kept
  CALL (kept) {
    UNWIND kept[0..$limit] AS s
    WITH s.c AS c, s.d AS d
    RETURN collect(${HIT_ROW}) AS hits
  }
  RETURN size(kept) AS visible, hits
}
RETURN size(found) AS fetched, size([f IN found WHERE f.c.embedding_model = $model]) AS matched,
  visible, hits`;
}

/**
 * Every chunk the caller may see that the current model embedded, scored directly (no index): for
 * a caller who may see so little that the nearest `maxNeighbours` held too few of their chunks.
 * Starts from the documents the caller may read, so the work is proportional to what they may see;
 * `scan` bounds it all the same.
 */
export const EXACT_CYPHER = `
MATCH (d:Document)
WHERE ${inPartitionCypher('d')} AND any(g IN coalesce(d.allowed_groups, []) WHERE g IN $groups)
  AND none(x IN coalesce(d.acl_deny, []) WHERE x IN $groups)
MATCH (c:Chunk)-[:PART_OF]->(d)
WHERE c.embedding_model = $model AND ${visibleCypher('c', 'd')}
WITH c, d LIMIT $scan
WITH c, d, vector.similarity.cosine(c.embedding, $vector) AS score
ORDER BY score DESC LIMIT $limit
RETURN ${HIT_ROW} AS hit`;

export interface NeighbourParams {
  vector: number[];
  model: string;
  limit: number;
  partitions: string[];
  groups: string[];
  /** The `acl_key`s the narrow plan searches (absent: the broad plan). */
  keys?: string[];
}

export interface Neighbours {
  hits: ScoredHit[];
  fetched: number;
  matched: number;
  visible: number;
}

function scored(rows: unknown[]): ScoredHit[] {
  return rows
    .map((r) => {
      const { score, ...hit } = r as Row;
      return { hit: hit as unknown as ChunkHit, score: cosineOfScore(Number(score)) };
    })
    .sort((a, b) => b.score - a.score);
}

export async function nearestVisible(
  query: Query,
  syntax: VectorSyntax,
  k: number,
  p: NeighbourParams,
): Promise<Neighbours> {
  const plan = p.keys ? 'narrow' : 'broad';
  const [row] = await query(neighbourCypher(syntax, plan), {
    ...p,
    k: int(k),
    limit: int(p.limit),
  });
  return {
    hits: scored(Array.isArray(row?.hits) ? row.hits : []),
    fetched: Number(row?.fetched ?? 0),
    matched: Number(row?.matched ?? 0),
    visible: Number(row?.visible ?? 0),
  };
}

export async function exactVisible(
  query: Query,
  scan: number,
  p: NeighbourParams,
): Promise<ScoredHit[]> {
  const rows = await query(EXACT_CYPHER, { ...p, scan: int(scan), limit: int(p.limit) });
  return scored(rows.map((r) => r.hit));
}
