// The two plans of the fulltext leg on a real Neo4j (src/knowledge/fulltext-search.ts): a reader
// who may see little has their partitions put in the Lucene query of the ACL index, everyone else
// is filtered after the text index. Whatever the plan, a reader gets the same passages, including
// readers of partitions whose names look like Lucene syntax, are Korean, or are stop words.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { FulltextSearch, readCandidates } from '../../src/knowledge/fulltext-search.ts';
import { FULLTEXT_ACL_INDEX } from '../../src/knowledge/graph-queries.ts';
import { luceneQuery } from '../../src/knowledge/lucene-query.ts';
import { type Query, ReadRunner } from '../../src/knowledge/read-runner.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

let kg: KgHarness;
const tag = randomBytes(4).toString('hex');
const opts = { timeoutMs: 20_000, phase: 'test' };
const narrow = () => new FulltextSearch({ narrowShare: 1 });
const broad = () => new FulltextSearch({ narrowShare: 0 });

/** Partitions with awkward names, one document each, written apart from the shared corpus. */
const ODD = [
  `q"uo\\te ${tag}`,
  `${tag}) OR *:*`,
  `영업-${tag}`,
  `slack:T${tag}:U1`,
  // Only stop words: the reader is asked the broad way, and still finds it.
  'the',
];

before(async () => {
  kg = await startKg();
  const session = kg.writer.session();
  try {
    await session.run(
      `UNWIND range(0, size($odd) - 1) AS i
       CREATE (d:Document {source_uri: 'odd-' + $tag + '://' + i, title: 'odd', allowed_groups: [$odd[i]],
         acl_partition: $odd[i], acl_partitions: [$odd[i]], valid_from: '2024-01-01'})
       CREATE (:Chunk {chunk_id: 'odd-' + $tag + '-' + i, seq: 0, acl_partition: $odd[i],
         acl_partitions: [$odd[i]], text: 'quokka ledger ' + $tag})-[:PART_OF]->(d)`,
      { odd: ODD, tag },
    );
  } finally {
    await session.close();
  }
});
after(async () => {
  const session = kg?.writer.session();
  await session
    ?.run(
      `MATCH (n) WHERE n.chunk_id STARTS WITH $chunks OR n.source_uri STARTS WITH $docs DETACH DELETE n`,
      { chunks: `odd-${tag}-`, docs: `odd-${tag}://` },
    )
    .finally(() => session.close());
  await kg?.close();
});

const ids = (hits: Array<{ hit: { chunk_id: string } }>) => hits.map((h) => h.hit.chunk_id).sort();

test('every reader gets the same passages from either plan', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  const { corpus } = kg;
  let compared = 0;
  for (const [principal, groups] of Object.entries(corpus.principals)) {
    const partitions = groups.includes(corpus.groups.eng) ? [...groups, corpus.groups.ops] : groups;
    for (const question of ['order API timeout', 'incident review vault', 'capacity planning']) {
      // All matches, not the top 12: the two indexes may break ties between equal scores apart.
      const params = { lucene: luceneQuery(question), limit: 1000, partitions, groups };
      const a = await readCandidates(runner, narrow(), params, opts);
      const b = await readCandidates(runner, broad(), params, opts);
      assert.deepEqual(ids(a), ids(b), `${principal} "${question}"`);
      compared += a.length;
    }
  }
  assert.ok(compared > 20, `only ${compared} passages compared`);
});

test('readers of oddly named partitions find their own passage and no other', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  for (const [i, partition] of ODD.entries()) {
    const params = {
      lucene: luceneQuery(`quokka ledger ${tag}`),
      limit: 50,
      partitions: [partition],
      groups: [partition],
    };
    for (const plan of [narrow(), broad()]) {
      const hits = await readCandidates(runner, plan, params, opts);
      assert.deepEqual(ids(hits), [`odd-${tag}-${i}`], partition);
    }
  }
});

test('without the ACL index the search is asked again the broad way', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  const plan = narrow();
  const { groups } = kg.corpus;
  const params = {
    lucene: luceneQuery('order API timeout'),
    limit: 1000,
    partitions: [groups.eng],
    groups: [groups.eng],
  };
  // The server's answer when the writer has not built the index yet.
  const missing =
    (q: Query): Query =>
    (cypher, p) =>
      p?.index === FULLTEXT_ACL_INDEX
        ? Promise.reject(new Error(`There is no such fulltext schema index: ${FULLTEXT_ACL_INDEX}`))
        : q(cypher, p);
  const failed = await runner
    .read((q) => plan.search(missing(q), params), opts)
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.ok(failed, 'the narrow plan asked the missing index');
  assert.equal(plan.switchedAfter(failed), true);
  assert.equal(plan.switchedAfter(new Error('something else')), false);
  const again = await runner.read((q) => plan.search(missing(q), params), opts);
  const expected = await readCandidates(runner, broad(), params, opts);
  assert.ok(again.length > 0);
  assert.deepEqual(ids(again), ids(expected));
});
