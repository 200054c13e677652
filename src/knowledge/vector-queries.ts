// The vector side of candidate search, read-only like the rest. A k-nearest-neighbour query returns
// its top k before any filter the index does not know, so the query asks for k neighbours, keeps
// the visible ones (the same `visibleCypher` as fulltext), and the caller widens k while too few
// are visible (`vector-search.ts`). Where the server filters inside the index, the index does what
// it can: the model id (Neo4j 2026.01+, `SEARCH … WHERE`), so a vector made by another model is
// never compared, and from 2026.06 (`IN`) the chunk's first partition too. A chunk is searched in
// several partitions when its document names several groups and no partition; the first is the
// only one a scalar index property can hold, so those chunks (`acl_shared`) get a second search of
// their own: `own` (first partition among the caller's) and `shared` together cover every chunk the
// caller may see. On 5.x the procedure answers and the model is filtered right after it.
import { int } from 'neo4j-driver';
import { inPartitionCypher, visibleCypher } from './acl.ts';
import { type ChunkHit, CLAIMS, DOC, type ScoredHit } from './graph-queries.ts';
import type { Query, Row } from './read-runner.ts';

export const VECTOR_INDEX = 'chunk_embedding';

/**
 * How a server is asked for nearest neighbours: `filtered` (model and first partition inside the
 * index), `search` (model inside the index), `procedure` (`db.index.vector.queryNodes`).
 */
export type VectorSyntax = 'filtered' | 'search' | 'procedure';

/** Which chunks one `filtered` search covers (`all` for the other syntaxes). */
export type VectorLeg = 'own' | 'shared' | 'all';

/** `SEARCH` arrived in Neo4j 2026.01 (calendar versions), its `IN` filter in 2026.06. */
export function vectorSyntaxOf(kernelVersion: string): VectorSyntax {
  const [major = Number.NaN, minor = Number.NaN] = kernelVersion
    .split('.')
    .map((n) => Number.parseInt(n, 10));
  if (major > 2026 || (major === 2026 && minor >= 6)) return 'filtered';
  return major >= 2026 ? 'search' : 'procedure';
}

/** The properties the index keeps beside the vector for `syntax`'s filters. */
export function filterProperties(syntax: VectorSyntax): string[] {
  if (syntax === 'filtered') return ['embedding_model', 'acl_partition', 'acl_shared'];
  return syntax === 'search' ? ['embedding_model'] : [];
}

/** The searches one request runs: both halves for `filtered`, one for the others. */
export function legsOf(syntax: VectorSyntax): VectorLeg[] {
  return syntax === 'filtered' ? ['own', 'shared'] : ['all'];
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

const LEG_FILTER: Record<VectorLeg, string> = {
  own: 'c.embedding_model = $model AND c.acl_partition IN $partitions',
  shared: 'c.embedding_model = $model AND c.acl_shared = true',
  all: 'c.embedding_model = $model',
};

function neighbours(syntax: VectorSyntax, leg: VectorLeg): string {
  return syntax === 'procedure'
    ? `CALL db.index.vector.queryNodes('${VECTOR_INDEX}', $k, $vector) YIELD node AS c, score`
    : `CYPHER 25
MATCH (c:Chunk)
  SEARCH c IN (VECTOR INDEX ${VECTOR_INDEX} FOR $vector WHERE ${LEG_FILTER[leg]} LIMIT $k)
  SCORE AS score`;
}

/**
 * The `k` nearest chunks, then the visible ones among them (best first, at most `limit`).
 * `fetched` is how many the index returned (fewer than `k`: it has no more), `matched` how many of
 * those the current model made, `visible` how many of those the caller may see. Scores are
 * recomputed exactly for the visible rows.
 */
export function neighbourCypher(syntax: VectorSyntax, leg: VectorLeg = 'all'): string {
  return `${neighbours(syntax, leg)}
WITH collect({c: c, score: score}) AS found
CALL (found) {
  UNWIND found AS f
  WITH f.c AS c, f.score AS score
  WHERE c.embedding_model = $model AND ${inPartitionCypher('c')}
  MATCH (c)-[:PART_OF]->(d:Document)
  WHERE ${visibleCypher('c', 'd')}
  WITH c, d, score ORDER BY score DESC
  RETURN count(*) AS visible, collect(${HIT_ROW})[0..$limit] AS hits
}
RETURN size(found) AS fetched, size([f IN found WHERE f.c.embedding_model = $model]) AS matched,
  visible, hits`;
}

/**
 * Every chunk of `leg` the caller may see that the current model embedded, scored directly (no
 * index): for a caller who may see so little that the nearest `maxNeighbours` held too few of their
 * chunks. Starts from the documents the caller may read, so the work is proportional to what they
 * may see; `scan` bounds it all the same.
 */
export function exactCypher(leg: VectorLeg): string {
  const part =
    leg === 'own'
      ? ' AND c.acl_partition IN $partitions'
      : leg === 'shared'
        ? ' AND c.acl_shared = true'
        : '';
  return `
MATCH (d:Document)
WHERE ${inPartitionCypher('d')} AND any(g IN coalesce(d.allowed_groups, []) WHERE g IN $groups)
  AND none(x IN coalesce(d.acl_deny, []) WHERE x IN $groups)
MATCH (c:Chunk)-[:PART_OF]->(d)
WHERE c.embedding_model = $model${part} AND ${visibleCypher('c', 'd')}
WITH c, d LIMIT $scan
WITH c, d, vector.similarity.cosine(c.embedding, $vector) AS score
ORDER BY score DESC LIMIT $limit
RETURN ${HIT_ROW} AS hit`;
}

export interface NeighbourParams {
  vector: number[];
  model: string;
  limit: number;
  partitions: string[];
  groups: string[];
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
  leg: VectorLeg,
  k: number,
  p: NeighbourParams,
): Promise<Neighbours> {
  const [row] = await query(neighbourCypher(syntax, leg), { ...p, k: int(k), limit: int(p.limit) });
  return {
    hits: scored(Array.isArray(row?.hits) ? row.hits : []),
    fetched: Number(row?.fetched ?? 0),
    matched: Number(row?.matched ?? 0),
    visible: Number(row?.visible ?? 0),
  };
}

export async function exactVisible(
  query: Query,
  leg: VectorLeg,
  scan: number,
  p: NeighbourParams,
): Promise<ScoredHit[]> {
  const rows = await query(exactCypher(leg), { ...p, scan: int(scan), limit: int(p.limit) });
  return scored(rows.map((r) => r.hit));
}
