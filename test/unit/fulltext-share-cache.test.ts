// The fulltext plan counts a reader's share of the chunks once per set of partitions: the same
// partitions in another order (or named twice) are the same reader and are not counted again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FulltextSearch } from '../../src/knowledge/fulltext-search.ts';
import type { Query } from '../../src/knowledge/read-runner.ts';

/** A graph of 100 chunks, 5 of them in the reader's partitions; counts the share queries. */
function countingGraph(): { query: Query; counted: () => number } {
  let counts = 0;
  const query: Query = async (cypher) => {
    if (cypher.includes('AS total')) {
      counts += 1;
      return [{ total: 100 }];
    }
    return [{ seen: 5 }];
  };
  return { query, counted: () => counts };
}

test('the share is counted once per set of partitions, whatever their order', async () => {
  const fulltext = new FulltextSearch({ narrowShare: 0.2 });
  const g = countingGraph();
  assert.equal(await fulltext.plan(g.query, ['b', 'a', 'c']), 'narrow');
  assert.equal(await fulltext.plan(g.query, ['c', 'b', 'a']), 'narrow');
  assert.equal(await fulltext.plan(g.query, ['a', 'b', 'c', 'a']), 'narrow');
  assert.equal(g.counted(), 1, 'the same set was counted again');
  await fulltext.plan(g.query, ['a', 'b']);
  assert.equal(g.counted(), 2, 'another set is counted');
});
