// The provider's Cypher, all read-only. The ACL sits inside the candidate query, between the
// fulltext index and LIMIT: hidden chunks are never candidates, so they cannot crowd permitted ones
// out of the top k (a WHERE after LIMIT, or a retriever's result hook, would be a post-filter).
// Expansion queries compute visibility per path and return only counts for hidden ones.
import { int } from 'neo4j-driver';
import { inPartitionCypher, partitionsCypher, visibleCypher } from './acl.ts';
import { identitiesOf } from './principal-id.ts';
import type { Query, Row } from './read-runner.ts';

export const FULLTEXT_INDEX = 'chunk_text';
/** The chunks' text and partitions, for a query restricted to the reader's partitions. */
export const FULLTEXT_ACL_INDEX = 'chunk_text_acl';

export interface DocFacts {
  source_uri: string;
  title?: string | null;
  updated_at?: string | null;
  source_version?: string | null;
  valid_from?: string | null;
  valid_to?: string | null;
  superseded_by?: string | null;
  acl_partition?: string | null;
  allowed_groups?: string[] | null;
}

export interface ClaimRef {
  claim_id: string;
  statement: string;
  evidence_id: string;
}

/** A chunk found by search or expansion, with its document and the claims located in it. */
export interface ChunkHit {
  chunk_id: string;
  text: string;
  acl_partition: string;
  doc: DocFacts;
  claims: ClaimRef[];
  /** Provenance of an expanded hit: the node it was reached from (`Chunk:…`, `Claim:…`, `Entity:…`). */
  from?: string;
}

export const DOC = `{.source_uri, .title, .updated_at, .source_version, .valid_from, .valid_to,
  .superseded_by, .acl_partition, .allowed_groups}`;
export const CLAIMS = `[(cl:Claim)-[:SUPPORTED_BY]->(ev:Evidence)-[:LOCATED_IN]->(c) |
  {claim_id: cl.claim_id, statement: cl.statement, evidence_id: ev.evidence_id}]`;

/**
 * Fulltext candidates; `aclFilter: false` exists only to measure and demonstrate the filter. With
 * `withVectors`, each row also carries the chunk's vector and the model that made it (hybrid search
 * judges lexical hits by their similarity too, when the question's model made them).
 */
export function candidateCypher(aclFilter: boolean, withVectors = false): string {
  return `
CALL db.index.fulltext.queryNodes($index, $lucene) YIELD node AS c, score
${aclFilter ? `WHERE ${inPartitionCypher('c')}` : ''}
MATCH (c)-[:PART_OF]->(d:Document)
${aclFilter ? `WHERE ${visibleCypher('c', 'd')}` : ''}
WITH c, d, score LIMIT $limit
RETURN c.chunk_id AS chunk_id, c.text AS text, c.acl_partition AS acl_partition, score,
  d ${DOC} AS doc, ${CLAIMS} AS claims${
    withVectors ? ',\n  c.embedding AS embedding, c.embedding_model AS embedding_model' : ''
  }`;
}

export interface ScoredHit {
  hit: ChunkHit;
  score: number;
  /** The chunk's vector and the embedder id that made it, when asked for and present. */
  embedding?: { vector: number[]; model: string };
}

export interface CandidateParams {
  lucene: string;
  limit: number;
  partitions: string[];
  groups: string[];
  /** The fulltext index `lucene` is meant for (default: `FULLTEXT_INDEX`). */
  index?: string;
}

export async function searchCandidates(
  query: Query,
  params: CandidateParams,
  aclFilter = true,
  withVectors = false,
): Promise<ScoredHit[]> {
  if (params.lucene === '') return [];
  const rows = await query(candidateCypher(aclFilter, withVectors), {
    ...params,
    limit: int(params.limit),
    index: params.index ?? FULLTEXT_INDEX,
  });
  return rows.map((r) => {
    const { embedding, embedding_model: model, ...hit } = r;
    return {
      hit: hit as unknown as ChunkHit,
      score: Number(r.score),
      ...(Array.isArray(embedding) && typeof model === 'string'
        ? { embedding: { vector: embedding as number[], model } }
        : {}),
    };
  });
}

/** One expansion: visible rows (capped) and how many paths were hidden. */
async function expand(
  query: Query,
  match: string,
  row: string,
  params: Record<string, unknown>,
): Promise<{ rows: ChunkHit[]; hidden: number }> {
  const [r] = await query(
    `${match}
WITH *, ${visibleCypher('c', 'd')} AS visible
WITH collect(CASE WHEN visible THEN ${row} END)[0..$limit] AS rows,
  sum(CASE WHEN visible THEN 0 ELSE 1 END) AS hidden
RETURN rows, hidden`,
    params,
  );
  return { rows: (r?.rows ?? []) as ChunkHit[], hidden: Number(r?.hidden ?? 0) };
}

export interface ExpansionInput {
  claimIds: string[];
  chunkIds: string[];
  documentUris: string[];
  seen: string[];
  limit: number;
  partitions: string[];
  groups: string[];
}

/** Other evidence of the same claims, neighbouring chunks, documents sharing an entity. */
export async function expandGraph(
  query: Query,
  p: ExpansionInput,
): Promise<{ claims: ChunkHit[]; neighbours: ChunkHit[]; entities: ChunkHit[]; hidden: number }> {
  const base = { seen: p.seen, limit: int(p.limit), partitions: p.partitions, groups: p.groups };
  const hitRow = (claims: string, from: string) =>
    `{chunk_id: c.chunk_id, text: c.text, acl_partition: c.acl_partition, doc: d ${DOC}, claims: ${claims}, from: ${from}}`;
  const claims = await expand(
    query,
    `UNWIND $claimIds AS cid
MATCH (cl:Claim {claim_id: cid})-[:SUPPORTED_BY]->(ev:Evidence)-[:LOCATED_IN]->(c:Chunk)-[:PART_OF]->(d:Document)
WHERE NOT c.chunk_id IN $seen`,
    hitRow(
      '[{claim_id: cl.claim_id, statement: cl.statement, evidence_id: ev.evidence_id}]',
      "'Claim:' + cl.claim_id",
    ),
    { ...base, claimIds: p.claimIds },
  );
  const neighbours = await expand(
    query,
    `UNWIND $chunkIds AS cid
MATCH (src:Chunk {chunk_id: cid})-[:PART_OF]->(d:Document)<-[:PART_OF]-(c:Chunk)
WHERE c.seq IN [src.seq - 1, src.seq + 1] AND NOT c.chunk_id IN $seen`,
    hitRow('[]', "'Chunk:' + cid"),
    { ...base, chunkIds: p.chunkIds },
  );
  const entities = await expand(
    query,
    `UNWIND $documentUris AS uri
MATCH (src:Document {source_uri: uri})<-[:MENTIONED_IN]-(e:Entity)-[:MENTIONED_IN]->(d:Document)<-[:PART_OF]-(c:Chunk)
WHERE d <> src AND NOT c.chunk_id IN $seen AND c.text CONTAINS e.name`,
    hitRow(CLAIMS, "'Entity:' + e.name"),
    { ...base, documentUris: p.documentUris },
  );
  return {
    claims: claims.rows,
    neighbours: neighbours.rows,
    entities: entities.rows,
    hidden: claims.hidden + neighbours.hidden + entities.hidden,
  };
}

/** Chunks named by id (Text2Cypher rows), visible ones only, plus how many were hidden or unknown. */
export async function fetchChunks(
  query: Query,
  p: { chunkIds: string[]; partitions: string[]; groups: string[] },
): Promise<{ rows: ChunkHit[]; hidden: number }> {
  return expand(
    query,
    `UNWIND $chunkIds AS cid
OPTIONAL MATCH (c:Chunk {chunk_id: cid})-[:PART_OF]->(d:Document)`,
    `{chunk_id: c.chunk_id, text: c.text, acl_partition: c.acl_partition, doc: d ${DOC}, claims: ${CLAIMS}}`,
    { ...p, limit: int(p.chunkIds.length) },
  );
}

/** Facts the final check needs, read again from the graph for exactly the chunks about to be output. */
export async function aclFactsOf(query: Query, chunkIds: string[]): Promise<Row[]> {
  return query(
    `UNWIND $chunkIds AS cid
OPTIONAL MATCH (c:Chunk {chunk_id: cid})-[:PART_OF]->(d:Document)
RETURN cid AS chunk_id, ${partitionsCypher('c')} AS chunk_partition,
  ${partitionsCypher('d')} AS document_partition,
  d.allowed_groups AS allowed_groups, d.acl_deny AS denied, d.source_uri AS source_uri`,
    { chunkIds },
  );
}

/** Graph groups of a principal, under its id or its deprecated id without the workspace. */
export async function graphGroups(query: Query, principalId: string): Promise<string[]> {
  const rows = await query(
    `UNWIND $ids AS id
OPTIONAL MATCH (:Principal {principal_id: id})-[:MEMBER_OF]->(g:Group)
RETURN collect(DISTINCT g.name) AS groups`,
    { ids: identitiesOf(principalId) },
  );
  const groups = rows[0]?.groups;
  return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
}

/** Graph groups of many principals at once (a channel's members), by principal id. */
export async function graphGroupsOfMany(
  query: Query,
  principalIds: readonly string[],
): Promise<Map<string, string[]>> {
  const ids = principalIds.map((id) => ({ id, any: identitiesOf(id) }));
  const rows = await query(
    `UNWIND $ids AS p
UNWIND p.any AS known
MATCH (:Principal {principal_id: known})-[:MEMBER_OF]->(g:Group)
RETURN p.id AS id, collect(DISTINCT g.name) AS groups`,
    { ids },
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    if (typeof r.id === 'string' && Array.isArray(r.groups))
      out.set(
        r.id,
        r.groups.filter((g): g is string => typeof g === 'string'),
      );
  }
  return out;
}
