// A person who may see little still gets their best passages from vector search. 300 decoy chunks
// that match the question exactly, in a partition nobody here may read, fill the index's nearest
// neighbours; the ACL filter follows the index, so the search must widen (or score the person's own
// chunks directly) to find what they may see. Checked against brute force over the chunks each
// person may read, through both ways of asking the index and both strategies; and through the ACL
// index (the person's partitions inside the search), which must find them without walking past
// the decoys.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { cosine } from '../../src/knowledge/query-vector.ts';
import { ReadRunner } from '../../src/knowledge/read-runner.ts';
import { VectorPlan } from '../../src/knowledge/vector-plan.ts';
import { createLogger } from '../../src/log/logger.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

let kg: KgHarness;
const DECOYS = 300;
const QUESTION = 'checkout on-call rotation handover notes order API release review';
let decoyUri = '';

before(async () => {
  kg = await startKg();
  decoyUri = `decoy-${kg.corpus.tag}://questions`;
  const group = `decoy-${kg.corpus.tag}`;
  const vector = Array.from(kg.embedder.vector(QUESTION));
  const session = kg.writer.session();
  try {
    await session.run(
      `CREATE (d:Document {source_uri: $uri, title: 'decoys', allowed_groups: [$group],
         acl_partition: $group, acl_partitions: [$group]})
       WITH d UNWIND range(1, $n) AS i
       CREATE (c:Chunk {chunk_id: $uri + '#' + i, text: $text, seq: i, acl_partition: $group,
         acl_partitions: [$group], embedding_model: $model})-[:PART_OF]->(d)
       WITH c CALL db.create.setNodeVectorProperty(c, 'embedding', $vector)`,
      { uri: decoyUri, group, n: DECOYS, text: QUESTION, model: kg.embedder.id, vector },
    );
  } finally {
    await session.close();
  }
});

after(async () => {
  const session = kg?.writer.session();
  await session
    ?.run('MATCH (c:Chunk)-[:PART_OF]->(d:Document {source_uri: $uri}) DETACH DELETE c, d', {
      uri: decoyUri,
    })
    .finally(() => session.close());
  await kg?.close();
});

/** The chunks `principal` may read, best first by similarity to the question (brute force). */
async function expected(principal: string): Promise<string[]> {
  const groups = kg.corpus.principals[`${principal}-${kg.corpus.tag}`] ?? [];
  const own = new Set(groups);
  if (own.has(kg.corpus.groups.eng)) own.add(kg.corpus.groups.ops);
  const rows = await new ReadRunner(kg.writer, 'neo4j').read(
    (q) =>
      q(
        `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE d.source_uri STARTS WITH $prefix
           AND c.embedding_model = $model
         RETURN c.chunk_id AS id, d.source_uri AS uri, c.embedding AS embedding`,
        { prefix: kg.corpus.uriPrefix, model: kg.embedder.id },
      ),
    { timeoutMs: 10_000, phase: 'test' },
  );
  const question = Array.from(kg.embedder.vector(QUESTION));
  return rows
    .filter(({ uri }) => {
      const u = String(uri);
      return (
        (kg.corpus.acl[u] ?? []).some((g) => groups.includes(g)) &&
        (kg.corpus.partitions[u] ?? []).some((p) => own.has(p))
      );
    })
    .map((r) => ({ id: String(r.id), score: cosine(question, r.embedding as number[]) }))
    .sort((a, b) => b.score - a.score)
    .map((r) => r.id);
}

const cases = [
  ...(['search', 'procedure'] as const).flatMap((syntax) =>
    [4000, 50].map((maxNeighbours) => ({ syntax, maxNeighbours, narrow: false })),
  ),
  { syntax: 'search' as const, maxNeighbours: 4000, narrow: true },
];

for (const { syntax, maxNeighbours, narrow } of cases) {
  {
    const how = narrow
      ? 'in the ACL index'
      : maxNeighbours === 50
        ? 'scored directly'
        : 'by widening k';
    test(`${syntax}, ${how}: each person's best chunks, never a decoy`, async () => {
      // How each search found its chunks (debug log), to show the path under test was taken.
      const via: unknown[] = [];
      const sink = new Writable({
        write(chunk, _enc, done) {
          const line = JSON.parse(String(chunk));
          if (line.msg === 'knowledge vector search') via.push(line.via);
          done();
        },
      });
      const p = kg.provider({
        log: createLogger('debug', sink),
        embedder: kg.embedder,
        vectorSyntax: syntax,
        // Everyone here may see a small share: "narrow" lets each ask the ACL index, the others never.
        vectorPlan: new VectorPlan({ narrowShare: narrow ? 1 : 0 }),
        settings: {
          ...kg.settings,
          vectorSearch: { ...kg.settings.vectorSearch, minSimilarity: -1, maxNeighbours },
        },
      });
      for (const principal of ['ops', 'bob', 'alice']) {
        const want = await expected(principal);
        assert.ok(want.length > 0, `${principal} may read something`);
        // Twice: the second request starts from what the first learned.
        for (const round of [1, 2]) {
          const r = await p.retrieve(
            kg.request(principal, QUESTION, { retrieval_mode: 'vector', max_tokens: 8000 }),
          );
          assert.equal(r.retrieval_mode, 'vector');
          assert.ok(!r.items.some((i) => i.source_uri === decoyUri), 'a decoy was returned');
          const got = [...new Set(r.items.map((i) => i.chunk_id))];
          const n = Math.min(3, want.length, kg.settings.candidateLimit);
          assert.deepEqual(got.slice(0, n), want.slice(0, n), `${principal}, round ${round}`);
        }
      }
      if (narrow)
        assert.ok(
          via.length > 0 &&
            via.every((v) => typeof v === 'object' && Number((v as { k: number }).k) < DECOYS),
          `the ACL index should skip the decoys: ${JSON.stringify(via)}`,
        );
      else if (maxNeighbours === 50) assert.ok(via.includes('exact'), JSON.stringify(via));
      else
        assert.ok(
          via.some((v) => typeof v === 'object' && Number((v as { k: number }).k) > DECOYS),
          `k was never widened past the decoys: ${JSON.stringify(via)}`,
        );
    });
  }
}
