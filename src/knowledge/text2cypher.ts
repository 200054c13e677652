// Text2Cypher, off by default. A generated query passes the guard, runs in a read transaction with
// the request's remaining time, and is logged with the trace id. Its rows are never output as
// such: only the chunk ids they name are kept, and those chunks are fetched again through the ACL.
import { isNode } from 'neo4j-driver';
import { asCodedError } from '../llm/classify-error.ts';
import type { Logger } from '../log/logger.ts';
import { type Access, aclParams } from './acl.ts';
import { guardCypher } from './cypher-guard.ts';
import { fetchChunks, type ScoredHit } from './graph-queries.ts';
import {
  KnowledgeQueryError,
  type ReadOptions,
  type ReadRunner,
  type Row,
  timeoutError,
} from './read-runner.ts';
import type { Text2CypherSettings } from './settings.ts';

/** Writes Cypher for a question (an LLM call in production). */
export type CypherGenerator = (
  question: string,
  schema: string,
  signal: AbortSignal,
) => Promise<string>;

/** What a generator is told about the graph; the answer must name chunks as `chunk_id`. */
export const GRAPH_SCHEMA_HINT = `Read-only Neo4j graph.
(:Document {source_uri, title, updated_at, valid_from, valid_to, superseded_by})
(:Chunk {chunk_id, text, seq})-[:PART_OF]->(:Document)
(:Claim {claim_id, statement})-[:SUPPORTED_BY]->(:Evidence {evidence_id, quote})-[:LOCATED_IN]->(:Chunk)
(:Entity {name})-[:MENTIONED_IN]->(:Document)
Fulltext index: CALL db.index.fulltext.queryNodes('chunk_text', $words) YIELD node, score.
Write one read query that returns the matching chunks as a column named chunk_id.`;

export interface Text2CypherDeps {
  runner: ReadRunner;
  generate: CypherGenerator;
  settings: Text2CypherSettings;
  log: Logger;
}

export interface Text2CypherOutcome {
  hits: ScoredHit[];
  notPermitted: number;
  unverifiable: number;
}

/** Chunk ids a row names: a `chunk_id` column or Chunk nodes; undefined when it names none. */
function chunkIdsOf(row: Row): string[] {
  const ids: string[] = [];
  for (const [key, v] of Object.entries(row)) {
    if (key === 'chunk_id' && typeof v === 'string') ids.push(v);
    else if (isNode(v) && v.labels.includes('Chunk')) {
      const id = (v.properties as Record<string, unknown>).chunk_id;
      if (typeof id === 'string') ids.push(id);
    }
  }
  return ids;
}

export async function runText2Cypher(
  deps: Text2CypherDeps,
  question: string,
  access: Access,
  traceId: string,
  step: (phase: string) => ReadOptions,
): Promise<Text2CypherOutcome> {
  let generated: string;
  const generating = step('text2cypher-generate');
  const signal = AbortSignal.timeout(Math.max(1, generating.timeoutMs));
  try {
    generated = await deps.generate(question, GRAPH_SCHEMA_HINT, signal);
  } catch (err) {
    if (asCodedError(err, signal).code === 'model_timeout') {
      const late = timeoutError(generating, 'the query generator did not answer');
      throw new KnowledgeQueryError(late.kind, late.message, { cause: err });
    }
    throw new KnowledgeQueryError('error', 'text2cypher: the query generator failed', {
      cause: err,
    });
  }
  const verdict = guardCypher(generated, deps.settings);
  if (!verdict.ok) {
    deps.log.warn(
      { trace_id: traceId, cypher: generated, reason: verdict.reason },
      'text2cypher refused',
    );
    throw new KnowledgeQueryError('bad_query', `text2cypher query refused: ${verdict.reason}`);
  }
  deps.log.info({ trace_id: traceId, cypher: verdict.cypher }, 'text2cypher query');
  const rows = await deps.runner.read((q) => q(verdict.cypher), step('text2cypher'));
  const ids: string[] = [];
  let unverifiable = 0;
  for (const row of rows) {
    const named = chunkIdsOf(row);
    if (named.length === 0) unverifiable++;
    for (const id of named) if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0) return { hits: [], notPermitted: 0, unverifiable };
  const fetched = await deps.runner.read(
    (q) => fetchChunks(q, { chunkIds: ids, ...aclParams(access) }),
    step('text2cypher-acl'),
  );
  const rank = new Map(ids.map((id, i) => [id, i]));
  const hits = fetched.rows.map((hit) => ({
    hit,
    score: 1 / (1 + (rank.get(hit.chunk_id) ?? ids.length)),
  }));
  return { hits, notPermitted: fetched.hidden, unverifiable };
}
