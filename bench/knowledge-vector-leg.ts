// The knowledge bench's vector leg on its own: the query as it was (every visible neighbour read
// in full — text, document, claims, the stored vector — and all but `limit` of them dropped) and
// as it is now (only the `limit` best visible ones read), interleaved on the same question
// vectors, for one reader. Both return the same rows; only the work differs.
import { loadavg } from 'node:os';
import { int } from 'neo4j-driver';
import { inPartitionCypher, visibleCypher } from '../src/knowledge/acl.ts';
import { CLAIMS, DOC } from '../src/knowledge/graph-queries.ts';
import type { ReadRunner } from '../src/knowledge/read-runner.ts';
import { neighbourCypher, VECTOR_INDEX } from '../src/knowledge/vector-queries.ts';
import { fmt, percentile } from './stats.ts';
import { timedPair } from './timed-pair.ts';

/** The broad plan's query before this change. */
const BEFORE = `CYPHER 25
MATCH (c:Chunk)
  SEARCH c IN (VECTOR INDEX ${VECTOR_INDEX} FOR $vector WHERE c.embedding_model = $model LIMIT $k)
  SCORE AS score
WITH collect({c: c, score: score}) AS found
CALL (found) {
  UNWIND found AS f
  WITH f.c AS c, f.score AS score
  WHERE c.embedding_model = $model AND ${inPartitionCypher('c')}
  MATCH (c)-[:PART_OF]->(d:Document)
  WHERE ${visibleCypher('c', 'd')}
  WITH c, d, score ORDER BY score DESC
  RETURN count(*) AS visible, collect({chunk_id: c.chunk_id, text: c.text,
    acl_partition: c.acl_partition, doc: d ${DOC}, claims: ${CLAIMS},
    score: vector.similarity.cosine(c.embedding, $vector)})[0..$limit] AS hits
}
RETURN size(found) AS fetched, size([f IN found WHERE f.c.embedding_model = $model]) AS matched,
  visible, hits`;

export async function vectorLegLines(
  runner: ReadRunner,
  reader: { label: string; partitions: string[] },
  vectors: Float32Array[],
  model: string,
  k: number,
): Promise<string> {
  const ask = (cypher: string) => (i: number) =>
    runner.read(
      (q) =>
        q(cypher, {
          vector: Array.from(vectors[i % vectors.length] as Float32Array),
          model,
          partitions: reader.partitions,
          groups: reader.partitions,
          k: int(k),
          limit: int(12),
        }),
      { timeoutMs: 10_000, phase: 'bench' },
    );
  const at = loadavg().map((l) => l.toFixed(2));
  const [old, now] = await timedPair(
    vectors.length,
    ask(BEFORE),
    ask(neighbourCypher('search', 'broad')),
  );
  const p = (ms: number[]) => `p50 ${fmt(percentile(ms, 50))}, p95 ${fmt(percentile(ms, 95))}`;
  return `vector leg query alone (broad plan, k ${k}), ${reader.label}: before (every visible neighbour read) ${p(old)}; now (the best 12 read) ${p(now)} (n=${vectors.length} each, interleaved; load ${at.join(' ')} → ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})`;
}
