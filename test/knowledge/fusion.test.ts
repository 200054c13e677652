// Reciprocal-rank fusion and the similarity floor, on hand-made candidate lists (no graph needed):
// what a person notices is which passage comes first and which are not shown at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aboveFloor, fuse } from '../../src/knowledge/fusion.ts';
import type { ScoredHit } from '../../src/knowledge/graph-queries.ts';

const hit = (id: string, score: number, vector?: number[], model = 'm'): ScoredHit => ({
  hit: {
    chunk_id: id,
    text: id,
    acl_partition: 'p',
    doc: { source_uri: `kb://${id}` },
    claims: [],
  },
  score,
  ...(vector ? { embedding: { vector, model } } : {}),
});
const ids = (xs: Array<{ hit: { chunk_id: string } }>) => xs.map((x) => x.hit.chunk_id);
const opts = { rrfK: 60, minSimilarity: 0.3, limit: 10 };
const q = { vector: [1, 0], model: 'm' };

test('a chunk both searches found outranks chunks only one of them ranked first', () => {
  const lexical = [hit('words-only', 9), hit('both', 5)];
  const semantic = [hit('meaning-only', 0.9), hit('both', 0.8)];
  const out = fuse(lexical, semantic, q, opts);
  assert.deepEqual(ids(out), ['both', 'meaning-only', 'words-only']);
  const both = out[0]?.scores;
  assert.equal(both?.fulltext, 5);
  assert.equal(both?.vector, 0.8);
  assert.equal(both?.fused, 2 / 62);
  // Equal ranks in the two lists: the better similarity breaks the tie.
  assert.ok((out[1]?.scores.fused ?? 0) === (out[2]?.scores.fused ?? 1));
});

test('rank, not raw score, decides: a huge Lucene score does not swamp the vector list', () => {
  const lexical = [hit('a', 1000), hit('b', 999)];
  const semantic = [hit('b', 0.5), hit('a', 0.49)];
  const out = fuse(lexical, semantic, q, opts);
  // a: 1/61 + 1/62; b: 1/62 + 1/61 — a tie, broken by similarity.
  assert.deepEqual(ids(out), ['b', 'a']);
});

test('a lexical hit unrelated in meaning is dropped; one without a vector is kept on its words', () => {
  const lexical = [
    hit('shares-a-word', 8, [0, 1]),
    hit('not-embedded-yet', 6),
    hit('related', 4, [0.9, 0.1]),
    // Another model's vector is not compared: kept on its words, with no similarity.
    hit('other-model', 3, [0, 1], 'another'),
  ];
  const out = fuse(lexical, [], q, opts);
  assert.deepEqual(ids(out), ['not-embedded-yet', 'related', 'other-model']);
  assert.equal(out[0]?.scores.vector, undefined);
  assert.equal(out[2]?.scores.vector, undefined);
  assert.ok((out[1]?.scores.vector ?? 0) > 0.9, 'its similarity is reported');
});

test('nothing above the floor: nothing at all', () => {
  const weak = [hit('x', 0.1), hit('y', 0.05)];
  assert.deepEqual(fuse([hit('x', 3, [0.1, 1])], weak, q, opts), []);
  assert.deepEqual(aboveFloor(weak, 0.3), []);
  assert.deepEqual(ids(aboveFloor([hit('z', 0.6), ...weak], 0.3)), ['z']);
});

test('the fused list is cut to the candidate limit', () => {
  const lexical = Array.from({ length: 12 }, (_, i) => hit(`l${i}`, 12 - i));
  const semantic = Array.from({ length: 12 }, (_, i) => hit(`v${i}`, 0.9 - i / 100));
  const out = fuse(lexical, semantic, q, { ...opts, limit: 12 });
  assert.equal(out.length, 12);
  assert.deepEqual(ids(out).slice(0, 2), ['v0', 'l0']);
});
