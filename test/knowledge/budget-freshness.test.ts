// Pure parts of the provider: freshness as its own axis, and the token budget's order of work
// (merge duplicate chunks → drop weaker evidence for a claim → cut, trimming text not metadata).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshnessInstant, freshnessOf } from '../../src/knowledge/freshness.ts';
import {
  envelopeTokens,
  evidenceTokens,
  fitToBudget,
  itemTokens,
  trimToTokens,
} from '../../src/knowledge/token-budget.ts';
import type { KnowledgeItem } from '../../src/knowledge/types.ts';
import { estimateTextTokens } from '../../src/llm/token-estimate.ts';

const AT = Date.parse('2025-01-01T00:00:00Z');

test('freshness: superseded or expired or not yet valid is stale; undated is unknown', () => {
  assert.equal(freshnessOf({ valid_from: '2024-01-01' }, AT), 'current');
  assert.equal(freshnessOf({ updated_at: '2024-06-01T10:00:00Z' }, AT), 'current');
  assert.equal(freshnessOf({ valid_from: '2024-01-01', superseded_by: 'kb://adr-2' }, AT), 'stale');
  assert.equal(freshnessOf({ valid_from: '2020-01-01', valid_to: '2024-12-31' }, AT), 'stale');
  assert.equal(freshnessOf({ valid_from: '2025-06-01' }, AT), 'stale');
  assert.equal(freshnessOf({}, AT), 'unknown');
  assert.equal(freshnessOf({ valid_from: 'someday' }, AT), 'unknown');
  assert.equal(freshnessInstant(null, 42), 42);
  assert.equal(freshnessInstant('2025-01-01T00:00:00Z', 42), AT);
  assert.throws(() => freshnessInstant('yesterday-ish', 42), RangeError);
});

function item(over: Partial<KnowledgeItem>): KnowledgeItem {
  const chunk = over.chunk_id ?? 'chunk-1';
  const uri = over.source_uri ?? 'kb://a.md';
  return {
    claim_id: null,
    content: 'Some passage text about the order service and its limits.',
    source_uri: uri,
    chunk_id: chunk,
    document_version: 'v1',
    freshness: 'current',
    provenance_path: [`Chunk:${chunk}`, `Document:${uri}`],
    retrieval_scores: { fulltext: 1 },
    ...over,
  };
}

test('duplicate chunks merge, the weaker evidence for a claim goes, stale only breaks ties', () => {
  const items = [
    item({ chunk_id: 'c1', retrieval_scores: { fulltext: 2 } }),
    item({ chunk_id: 'c1', retrieval_scores: { graph: 1 } }),
    item({ chunk_id: 'c2', content: 'Some  passage text about the ORDER service and its limits.' }),
    item({
      chunk_id: 'c3',
      claim_id: 'k',
      content: 'Timeout is 3 s.',
      freshness: 'stale',
      retrieval_scores: { fulltext: 9 },
    }),
    item({
      chunk_id: 'c4',
      claim_id: 'k',
      content: 'Timeout is 3 s.',
      retrieval_scores: { fulltext: 1 },
    }),
    item({ chunk_id: 'c5', claim_id: 'j', content: 'Only stale says 10 s.', freshness: 'stale' }),
  ];
  const out = fitToBudget(items, 10_000);
  assert.deepEqual(
    out.items.map((i) => i.chunk_id),
    ['c1', 'c4', 'c5'],
  );
  assert.deepEqual(out.items[0]?.retrieval_scores, { fulltext: 2 });
  assert.deepEqual(Object.fromEntries(out.denied.map((d) => [d.reason, d.count])), {
    duplicate_chunk: 2,
    weaker_evidence: 1,
  });
  assert.equal(out.usedTokens, evidenceTokens(out.items));
});

test('relevance first: a more relevant outdated passage outranks current ones and survives the cut', () => {
  const items = [
    item({ chunk_id: 'cur1', content: 'A current passage that matches weakly.' }),
    item({ chunk_id: 'cur2', content: 'Another current passage, weakly matching.' }),
    item({
      chunk_id: 'old',
      content: 'The order API timeout was 10 seconds.',
      freshness: 'stale',
      retrieval_scores: { fulltext: 5 },
    }),
  ];
  const out = fitToBudget(items, envelopeTokens(true) + itemTokens(items[2] as KnowledgeItem) + 2);
  assert.deepEqual(
    out.items.map((i) => [i.chunk_id, i.freshness]),
    [['old', 'stale']],
  );
});

test('a claim quoted whole by a kept passage of the same chunk is not paid for twice', () => {
  const out = fitToBudget(
    [
      item({ chunk_id: 'c1', content: 'Intro. The timeout must be 3 seconds. More.' }),
      item({ chunk_id: 'c1', claim_id: 'k', content: 'The timeout must be 3 seconds.' }),
    ],
    10_000,
  );
  assert.equal(out.items.length, 1);
});

test('cutting keeps rank order, trims the first item that does not fit, never its metadata', () => {
  const long = 'Capacity planning keeps headroom for seasonal peaks. '.repeat(30);
  const items = [
    item({ chunk_id: 'a', retrieval_scores: { fulltext: 3 } }),
    item({ chunk_id: 'b', content: long, retrieval_scores: { fulltext: 2 } }),
    item({
      chunk_id: 'c',
      content: 'Third passage, never reached.',
      retrieval_scores: { fulltext: 1 },
    }),
  ];
  const first = envelopeTokens(true) + itemTokens(items[0] as KnowledgeItem);
  const out = fitToBudget(items, first + 120);
  assert.deepEqual(
    out.items.map((i) => i.chunk_id),
    ['a', 'b'],
  );
  const cut = out.items[1] as KnowledgeItem;
  assert.ok(cut.content.endsWith('…') && cut.content.length < long.length);
  assert.deepEqual(cut.provenance_path, ['Chunk:b', 'Document:kb://a.md']);
  assert.ok(out.usedTokens <= first + 120);
  assert.deepEqual(out.denied, [{ reason: 'token_budget', count: 1 }]);
  assert.deepEqual(fitToBudget(items, 5).items, []);
});

test('trimToTokens stays within the budget and cuts at a word', () => {
  const text = '주문 API 제한 시간은 3초로 문서화되어 있다. '.repeat(40);
  for (const budget of [10, 40, 120]) {
    const t = trimToTokens(text, budget);
    assert.ok(estimateTextTokens(t) <= budget, `${budget}: ${estimateTextTokens(t)}`);
    assert.ok(t.endsWith('…'));
  }
  assert.equal(trimToTokens('short', 100), 'short');
});
