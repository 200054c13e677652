// The over-fetch policy of ACL-filtered vector search, against a simulated index (the Neo4j side is
// covered by vector-acl.test.ts): how many neighbours each query asks for, when a caller's chunks
// are scored directly, and the switch to the procedure when the server cannot filter in the index.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Query, Row } from '../../src/knowledge/read-runner.ts';
import { VectorPlan } from '../../src/knowledge/vector-plan.ts';
import { aclKeyOf, VECTOR_ACL_INDEX } from '../../src/knowledge/vector-queries.ts';
import { VectorSearch } from '../../src/knowledge/vector-search.ts';

const params = { vector: [1, 0], model: 'm', limit: 12, partitions: ['p'], groups: ['p'] };

/** An index of `size` vectors of which the share `visible` is the caller's, evenly spread. */
function simulated(size: number, visible: number, version = '2026.08.1') {
  const asked: Array<number | 'exact'> = [];
  const query: Query = async (cypher, p = {}) => {
    if (cypher.includes('dbms.components')) return [{ v: version }];
    // The share of the chunks the caller's partitions hold: unknown here, so the first index.
    if (cypher.includes('AS total')) return [{ total: 0 }];
    if (cypher.includes('vector.similarity.cosine(c.embedding, $vector) AS score')) {
      asked.push('exact');
      const n = Math.min(Number(p.limit), Math.round(size * visible));
      return Array.from({ length: n }, (_, i) => ({ hit: { chunk_id: `x${i}`, score: 1 } }));
    }
    const k = Number(p.k);
    asked.push(k);
    const fetched = Math.min(k, size);
    const seen = Math.floor(fetched * visible);
    const hits = Array.from(
      { length: Math.min(Number(p.limit), seen) },
      (_, i): Row => ({ chunk_id: `c${i}`, score: 0.9 }),
    );
    return [{ fetched, matched: fetched, visible: seen, hits }];
  };
  return { query, asked };
}

test('a caller who sees 5 %: k grows from the visible share, then starts there next time', async () => {
  const index = simulated(100_000, 0.05);
  const search = new VectorSearch(4000);
  const first = await search.search(index.query, params);
  assert.equal(first.hits.length, 12);
  // 1 of 24 visible: 12 / (1/24) × 1.25 = 360, where 18 are; 12 / (18/360) × 1.25 = 300 next time.
  assert.deepEqual(index.asked, [24, 360]);
  index.asked.length = 0;
  await search.search(index.query, params);
  await search.search(index.query, params);
  assert.deepEqual(index.asked, [300, 300], 'the k the visible share calls for is remembered');
});

test('a caller who sees everything needs one query; an index with fewer vectors is not widened', async () => {
  const all = simulated(100_000, 1);
  await new VectorSearch(4000).search(all.query, params);
  assert.deepEqual(all.asked, [24]);
  const small = simulated(10, 0.5);
  const out = await new VectorSearch(4000).search(small.query, params);
  assert.deepEqual(small.asked, [24], 'the index had no more than 10');
  assert.equal(out.hits.length, 5);
});

test('a caller who sees 0.01 %: after maxNeighbours their chunks are scored directly', async () => {
  const index = simulated(100_000, 0.0001);
  const search = new VectorSearch(4000);
  const out = await search.search(index.query, params);
  assert.equal(out.via, 'exact');
  assert.deepEqual(index.asked, [24, 192, 1536, 4000, 'exact']);
  index.asked.length = 0;
  await search.search(index.query, params);
  assert.deepEqual(index.asked, ['exact'], 'straight to direct scoring next time');
});

test('no vector of the model at all: said so, without widening', async () => {
  const none = simulated(0, 0);
  const out = await new VectorSearch(4000).search(none.query, params);
  assert.equal(out.modelHasVectors, false);
  assert.deepEqual(none.asked, [24]);
});

test('a server that cannot filter in this index: the search switches to the procedure', async () => {
  const cyphers: string[] = [];
  const query: Query = async (cypher) => {
    cyphers.push(cypher);
    if (cypher.includes('dbms.components')) return [{ v: '2026.08.1' }];
    if (cypher.includes('SEARCH c IN'))
      throw Object.assign(new Error('not an additional property'), { gqlStatus: '22ND3' });
    return [{ fetched: 0, matched: 0, visible: 0, hits: [] }];
  };
  const search = new VectorSearch(4000);
  const err = await search.search(query, params).catch((e: unknown) => e);
  assert.ok(err instanceof Error);
  assert.equal(search.switchedAfter(new Error('wrapped', { cause: err })), true);
  await search.search(query, params);
  assert.match(cyphers.at(-1) ?? '', /db\.index\.vector\.queryNodes/);
  assert.equal(search.switchedAfter(err), false, 'only once');
  const old = new VectorSearch(4000);
  await old.search(simulated(10, 1, '5.26.0').query, params);
  assert.equal(old.switchedAfter(err), false, 'a 5.x server uses the procedure from the start');
});

/** A graph of 100k chunks where the caller's partition holds `share` of them, one shared document. */
function narrowGraph(share: number, aclIndex: 'online' | 'missing' = 'online') {
  const asked: Array<{ index: string; k: number; keys?: unknown }> = [];
  const query: Query = async (cypher, p = {}) => {
    if (cypher.includes('dbms.components')) return [{ v: '2026.08.1' }];
    if (cypher.includes('RETURN count(c) AS total')) return [{ total: 100_000 }];
    if (cypher.includes('AS seen')) return [{ seen: Math.min(Number(p.cap), 100_000 * share) }];
    if (cypher.includes('RETURN DISTINCT')) return [{ key: aclKeyOf(['q', 'p']) }];
    const index = cypher.includes(VECTOR_ACL_INDEX) ? 'acl' : 'broad';
    if (index === 'acl' && aclIndex === 'missing')
      throw new Error(`There is no such vector schema index: ${VECTOR_ACL_INDEX}`);
    const k = Number(p.k);
    asked.push({ index, k, ...(p.keys ? { keys: p.keys } : {}) });
    const seen = index === 'acl' ? k : Math.floor(k * share);
    const hits = Array.from(
      { length: Math.min(Number(p.limit), seen) },
      (_, i): Row => ({ chunk_id: `c${i}`, score: 0.9 }),
    );
    return [{ fetched: k, matched: k, visible: seen, hits }];
  };
  return { query, asked };
}

test('a caller whose partitions hold 5 %: the ACL index with their partition sets, k near limit', async () => {
  const graph = narrowGraph(0.05);
  const out = await new VectorSearch(4000).search(graph.query, params);
  assert.equal(out.hits.length, 12);
  // Their partition alone, and the set of a document shared with another partition.
  assert.deepEqual(graph.asked, [
    { index: 'acl', k: 15, keys: [aclKeyOf(['p']), aclKeyOf(['q', 'p'])] },
  ]);
});

test('a caller whose partitions hold most chunks, or the "before" plan: the first index', async () => {
  const broad = narrowGraph(0.5);
  await new VectorSearch(4000).search(broad.query, params);
  assert.deepEqual(broad.asked, [{ index: 'broad', k: 24 }]);
  const before = narrowGraph(0.05);
  await new VectorSearch(4000, undefined, new VectorPlan({ narrowShare: 0 })).search(
    before.query,
    params,
  );
  assert.equal(before.asked[0]?.index, 'broad');
});

test('a graph without the ACL index: asked the first way, the ACL index tried again a minute later', async () => {
  let now = 0;
  const graph = narrowGraph(0.05, 'missing');
  const search = new VectorSearch(4000, undefined, new VectorPlan({ now: () => now }));
  const err = await search.search(graph.query, params).catch((e: unknown) => e);
  assert.ok(err instanceof Error);
  assert.equal(search.switchedAfter(new Error('wrapped', { cause: err })), true);
  const out = await search.search(graph.query, params);
  assert.equal(out.hits.length, 12);
  assert.ok(graph.asked.every((a) => a.index === 'broad'));
  now += 61_000;
  await search.search(graph.query, params).catch(() => undefined);
  assert.equal(search.switchedAfter(err), true, 'the ACL index was asked again');
});
