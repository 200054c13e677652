// The fulltext plan counts a reader's share of the chunks once per set of partitions: the same
// partitions in another order (or named twice) are the same reader and are not counted again; and
// the vector plan, given the same cache, does not count that reader again either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkShares } from '../../src/knowledge/chunk-share.ts';
import { FulltextSearch } from '../../src/knowledge/fulltext-search.ts';
import type { Query } from '../../src/knowledge/read-runner.ts';
import { VectorPlan } from '../../src/knowledge/vector-plan.ts';

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

test('the fulltext and vector plans share one count per reader', async () => {
  const shares = new ChunkShares();
  const fulltext = new FulltextSearch({ narrowShare: 0.2, shares });
  const vectors = new VectorPlan({ narrowShare: 0.2, shares });
  const g = countingGraph();
  assert.equal(await fulltext.plan(g.query, ['a', 'b']), 'narrow');
  assert.ok(await vectors.keysFor(g.query, ['b', 'a']), 'the vector plan asks the ACL index');
  assert.equal(g.counted(), 1, 'the vector plan counted the same reader again');
});

test('a share counted up to a lower threshold is counted again for a higher one', async () => {
  const shares = new ChunkShares();
  let counts = 0;
  const query: Query = async (cypher, params) => {
    if (cypher.includes('AS total')) {
      counts += 1;
      return [{ total: 100 }];
    }
    // Half the chunks are the reader's; the count stops at its cap.
    const cap = params?.cap as { toNumber(): number } | undefined;
    return [{ seen: Math.min(50, cap ? cap.toNumber() : 0) }];
  };
  assert.ok((await shares.shareOf(query, ['a'], 0.2)) > 0.2);
  assert.equal(await shares.shareOf(query, ['a'], 0.1), 0.21, 'a lower threshold reuses it');
  assert.equal(await shares.shareOf(query, ['a'], 0.6), 0.5, 'a higher one counts again');
  assert.equal(counts, 2);
});
