// The knowledge provider on a real Neo4j (test/support/neo4j-server.ts): ACL inside the candidate
// query, provenance on every item, token budget, freshness and time limits (ARCHITECTURE.md,
// "Invariants" 4 and "Knowledge (Neo4j)").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FULLTEXT_INDEX, searchCandidates } from '../../src/knowledge/graph-queries.ts';
import { knowledgeSearchTool, renderKnowledgeResult } from '../../src/knowledge/knowledge-tool.ts';
import { luceneQuery } from '../../src/knowledge/lucene-query.ts';
import { ReadRunner } from '../../src/knowledge/read-runner.ts';
import {
  envelopeTokens,
  evidenceTokens,
  itemTokens,
  metadataText,
} from '../../src/knowledge/token-budget.ts';
import type { KnowledgeItem, KnowledgeResult } from '../../src/knowledge/types.ts';
import { estimateTextTokens } from '../../src/llm/token-estimate.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { ownersOf } from '../../src/model/thread-ref.ts';
import { NO_SCOPE_MESSAGE, runInScope, type TurnScope } from '../../src/scope/scope.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

const uris = (r: KnowledgeResult) => [...new Set(r.items.map((i) => i.source_uri))].sort();

test('A and B ask the same question and each gets only their own partition', async () => {
  const p = kg.provider();
  const a = await p.retrieve(kg.request('alice', 'order API timeout'));
  const b = await p.retrieve(kg.request('bob', 'order API timeout'));
  assert.ok(a.answerable && b.answerable);
  const { eng, sec } = kg.corpus.groups;
  for (const uri of uris(a)) assert.ok(kg.corpus.acl[uri]?.includes(eng), `alice got ${uri}`);
  for (const uri of uris(b)) assert.deepEqual(kg.corpus.acl[uri], [sec], `bob got ${uri}`);
  assert.ok(uris(a).includes(kg.corpus.uri('eng/runbook-order-api.md')));
  assert.ok(uris(b).includes(kg.corpus.uri('sec/incident-2024-07.md')));
  assert.ok(!a.items.some((i) => /zebracorn/i.test(i.content)), 'alice must not see sec text');
  // The same claim text exists in both partitions: each caller gets their own evidence for it.
  const claim = (r: KnowledgeResult) =>
    r.items.find((i) => i.content === 'The order API timeout must be 3 seconds.');
  assert.equal(claim(a)?.claim_id, claim(b)?.claim_id);
  assert.notEqual(claim(a)?.source_uri, claim(b)?.source_uri);
});

test('the partition filter matters: without it the same candidate query returns B’s chunks', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  const alice = { partitions: [kg.corpus.groups.eng], groups: [kg.corpus.groups.eng] };
  // A high limit: other corpora in the same database (earlier runs, other suites) must not crowd
  // this corpus's chunks out of the unfiltered candidates.
  const params = { lucene: luceneQuery('zebracorn order API timeout'), limit: 1000, ...alice };
  const opts = { timeoutMs: 5000, phase: 'test' };
  const secUri = (h: { hit: { doc: { source_uri: string } } }) =>
    kg.corpus.acl[h.hit.doc.source_uri]?.includes(kg.corpus.groups.sec) ?? false;
  const raw = await runner.read((q) => searchCandidates(q, params, false), opts);
  const filtered = await runner.read((q) => searchCandidates(q, params, true), opts);
  assert.ok(raw.filter(secUri).length >= 2, 'the unfiltered query finds sec chunks');
  assert.equal(filtered.filter(secUri).length, 0, 'the filtered one never does');
  assert.ok(filtered.length > 0);
  // And through the provider, alice asking for the sec-only word gets nothing, not a leak.
  const r = await kg.provider().retrieve(kg.request('alice', 'zebracorn vault'));
  assert.equal(r.answerable, false);
  assert.equal(r.failure, undefined);
  assert.equal(FULLTEXT_INDEX, 'chunk_text');
});

test('every item carries source_uri, chunk_id, version, freshness and a provenance path', async () => {
  for (const mode of ['fulltext', 'graph'] as const) {
    const r = await kg
      .provider()
      .retrieve(kg.request('erin', 'order API timeout payment review', { retrieval_mode: mode }));
    assert.ok(r.items.length >= 5, mode);
    for (const item of r.items) {
      assert.match(item.source_uri, new RegExp(`^${kg.corpus.uriPrefix}`));
      assert.match(item.chunk_id, /^chunk-/);
      assert.ok(['current', 'stale', 'unknown'].includes(item.freshness));
      assert.ok(item.document_version);
      assert.equal(item.provenance_path.at(-1), `Document:${item.source_uri}`);
      assert.ok(item.provenance_path.includes(`Chunk:${item.chunk_id}`));
      if (item.claim_id) assert.ok(item.provenance_path.includes(`Claim:${item.claim_id}`));
      assert.ok(Object.values(item.retrieval_scores).every((s) => s > 0));
    }
  }
});

test('a small max_tokens trims items but keeps their metadata; used_tokens is honest', async () => {
  const p = kg.provider();
  const q = 'capacity planning checkout headroom dashboards';
  const full = await p.retrieve(kg.request('alice', q, { max_tokens: 8000 }));
  assert.ok(full.items.length >= 4);
  assert.equal(full.limits.used_tokens, evidenceTokens(full.items));
  // Room for the items before the first long one, and half of that one's text.
  const k = full.items.findIndex((i, n) => n > 0 && estimateTextTokens(i.content) >= 40);
  assert.ok(k > 0);
  const long = full.items[k] as KnowledgeItem;
  const before = full.items
    .slice(0, k)
    .map(itemTokens)
    .reduce((a, b) => a + b, envelopeTokens(true));
  const half = Math.ceil(estimateTextTokens(long.content) / 2);
  const max = before + estimateTextTokens(`${metadataText(long, k)}\n`) + 2 + half;
  const small = await p.retrieve(kg.request('alice', q, { max_tokens: max }));
  assert.ok(small.answerable);
  assert.equal(small.items.length, k + 1);
  assert.ok(small.items.length < full.items.length);
  assert.ok(small.limits.used_tokens <= max);
  assert.equal(small.limits.used_tokens, evidenceTokens(small.items));
  // What the model reads is what was counted (estimates of parts and whole differ by rounding).
  const read = estimateTextTokens(renderKnowledgeResult(q, small));
  assert.ok(Math.abs(read - small.limits.used_tokens) <= small.items.length + 1, `${read}`);
  assert.ok(read <= max + small.items.length, `${read} > ${max}`);
  assert.ok(small.denied.some((d) => d.reason === 'token_budget' && d.count > 0));
  const cut = small.items[k] as KnowledgeItem;
  assert.ok(cut.content.endsWith('…') && cut.content.length < long.content.length, 'trimmed');
  // Scores are re-measured on each search and drift when other test files, sharing the server in
  // CI, add documents; the item's own metadata must not change.
  const { content: _a, retrieval_scores: cutScores, ...meta } = cut;
  const { content: _b, retrieval_scores: fullScores, ...fullMeta } = long;
  assert.deepEqual(meta, fullMeta, 'the trimmed item keeps all of its metadata');
  assert.deepEqual(
    Object.keys(cutScores).sort(),
    Object.keys(fullScores).sort(),
    'and its kinds of score',
  );
  const tiny = await p.retrieve(kg.request('alice', q, { max_tokens: 10 }));
  assert.equal(tiny.answerable, false);
  assert.equal(tiny.limits.used_tokens, 0);
});

test('a superseded ADR comes back marked stale, ranked by relevance like the rest', async () => {
  const r = await kg.provider().retrieve(kg.request('alice', 'ADR decision order API timeout'));
  const adr1 = r.items.filter((i) => i.source_uri.endsWith('adr-001-timeouts.md'));
  const adr2 = r.items.filter((i) => i.source_uri.endsWith('adr-002-timeouts.md'));
  assert.ok(adr1.length > 0 && adr2.length > 0);
  assert.ok(adr1.every((i) => i.freshness === 'stale'));
  assert.ok(adr2.every((i) => i.freshness === 'current'));
  // Relevance first: freshness is marked on each item, never a reason to rank it lower.
  const best = (i: KnowledgeItem) => Math.max(...Object.values(i.retrieval_scores));
  for (const [n, item] of r.items.entries())
    if (n > 0)
      assert.ok(best(r.items[n - 1] as KnowledgeItem) >= best(item), 'ranked by relevance');
  const retired = await kg.provider().retrieve(kg.request('alice', 'Tuesday deploy windows'));
  assert.equal(retired.items[0]?.freshness, 'stale', 'valid_to in the past');
  // Judged at a date before ADR-002 was in force, ADR-002 is the one not yet valid.
  const past = await kg
    .provider()
    .retrieve(
      kg.request('alice', 'ADR decision', { freshness_required_at: '2023-06-01T00:00:00Z' }),
    );
  assert.ok(
    past.items
      .filter((i) => i.source_uri.endsWith('adr-002-timeouts.md'))
      .every((i) => i.freshness === 'stale'),
  );
});

test('a timeout is a failure, never a shorter answer', async () => {
  const r = await kg
    .provider()
    .retrieve(kg.request('alice', 'order API timeout', { timeout_ms: 1 }));
  assert.equal(r.answerable, false);
  assert.equal(r.failure?.kind, 'timeout');
  assert.deepEqual(r.items, []);
  assert.equal(r.limits.timeout_ms, 1);
  // A deliberately slow (but guard-approved) query is cut off by the transaction timeout.
  const slow = kg.provider({
    settings: { ...kg.settings, text2cypher: { enabled: true, maxRows: 25, maxHops: 3 } },
    generateCypher: async () =>
      'MATCH (c:Chunk) WITH c, reduce(s = 0, x IN range(1, 10000) | s + reduce(t = 0, y IN range(1, 10000) | t + y)) AS n RETURN c.chunk_id AS chunk_id',
  });
  const s = await slow.retrieve(
    kg.request('alice', 'anything', { retrieval_mode: 'text2cypher', timeout_ms: 400 }),
  );
  assert.equal(s.failure?.kind, 'timeout');
  assert.equal(s.answerable, false);
});

test('groups come from config and the graph; no groups or no allowed scope permits nothing', async () => {
  const p = kg.provider();
  const carol = await p.retrieve(kg.request('carol', 'order API timeout'));
  assert.ok(carol.answerable, 'carol is an eng member through principals.yaml only');
  const dave = await p.retrieve(kg.request('dave', 'order API timeout'));
  assert.equal(dave.answerable, false);
  assert.deepEqual(dave.denied, [{ reason: 'no_permitted_partition', count: 1 }]);
  const narrowed = await p.retrieve(
    kg.request('erin', 'order API timeout', { allowed_scopes: [kg.corpus.groups.sec] }),
  );
  assert.ok(narrowed.answerable);
  for (const uri of uris(narrowed))
    assert.ok(kg.corpus.partitions[uri]?.includes(kg.corpus.groups.sec), uri);
  assert.ok(narrowed.denied.some((d) => d.reason === 'scope_not_allowed'));
  const none = await p.retrieve(kg.request('erin', 'order API timeout', { allowed_scopes: [] }));
  assert.equal(none.answerable, false);
  // ops sees its own partition; eng members search it through groupPartitions.
  const ops = await p.retrieve(kg.request('ops', 'on-call rotation'));
  assert.deepEqual(uris(ops), [kg.corpus.uri('shared/ops-and-eng.md')]);
  const alice = await p.retrieve(kg.request('alice', 'on-call rotation'));
  assert.ok(uris(alice).includes(kg.corpus.uri('shared/ops-and-eng.md')));
  const bob = await p.retrieve(kg.request('bob', 'on-call rotation handover'));
  assert.ok(!uris(bob).includes(kg.corpus.uri('shared/ops-and-eng.md')));
});

test('graph expansion drops paths through chunks the caller may not see, and counts them', async () => {
  const r = await kg
    .provider()
    .retrieve(
      kg.request('alice', 'order API timeout must be 3 seconds', { retrieval_mode: 'graph' }),
    );
  assert.ok(r.answerable);
  for (const uri of uris(r)) assert.ok(kg.corpus.acl[uri]?.includes(kg.corpus.groups.eng));
  const hidden = r.denied.find((d) => d.reason === 'expansion_not_permitted');
  assert.ok(
    hidden && hidden.count >= 1,
    'the sec evidence for the shared claim was reached and dropped',
  );
});

test('knowledge_search answers for the scope’s principal, cites sources and marks outdated ones', async () => {
  const settings = { ...kg.settings, maxTokens: 4000, timeoutMs: 10_000 };
  const principalOf = (s: TurnScope) => s.principal;
  const search = knowledgeSearchTool({
    provider: kg.provider(),
    settings,
    log: silentLogger(),
    principalOf,
  });
  assert.equal(String(await search.invoke({ query: 'order API timeout' })), NO_SCOPE_MESSAGE);
  const ref = { platform: 'slack', projectId: 'T1', channelId: 'C1', sessionId: '1.0' } as const;
  const scope = (who: string) => ({
    ref,
    principal: `${who}-${kg.corpus.tag}`,
    owners: ownersOf(ref),
    images: [],
    traceId: `trace-tool-${who}`,
  });
  // Invoked with bare arguments the tool gives its text; a tool call also gets the sources.
  const alice = String(
    await runInScope(scope('alice'), () =>
      search.invoke({ query: 'ADR decision order API timeout' }),
    ),
  );
  assert.match(alice, /^<data source="knowledge_search">/);
  assert.match(alice, new RegExp(`${kg.corpus.uri('eng/adr/adr-002-timeouts.md')} — chunk chunk-`));
  assert.match(alice, new RegExp(`${kg.corpus.uri('eng/adr/adr-001-timeouts.md')} \\(outdated\\)`));
  assert.doesNotMatch(alice, /zebracorn|sec\//);
  const bob = String(await runInScope(scope('bob'), () => search.invoke({ query: 'zebracorn' })));
  assert.match(bob, /incident-2024-07\.md/);
  const dave = String(await runInScope(scope('dave'), () => search.invoke({ query: 'order API' })));
  assert.match(dave, /^No usable evidence.*no access/);
  const hurried = knowledgeSearchTool({
    provider: kg.provider(),
    settings: { ...settings, timeoutMs: 1 },
    log: silentLogger(),
    principalOf,
  });
  const late = String(await runInScope(scope('alice'), () => hurried.invoke({ query: 'order' })));
  assert.match(late, /^No usable evidence.*did not finish within its 1 ms deadline/);
});

test('a document of several groups without a partition is found by members of each group', async () => {
  const p = kg.provider();
  const doc = kg.corpus.uri('shared/eng-and-sec.md');
  for (const who of ['alice', 'bob', 'carol']) {
    for (const mode of ['fulltext', 'graph'] as const) {
      const r = await p.retrieve(kg.request(who, 'quokkaflare board', { retrieval_mode: mode }));
      assert.ok(uris(r).includes(doc), `${who} (${mode}) did not find it`);
    }
  }
  const outsider = await p.retrieve(kg.request('ops', 'quokkaflare board'));
  assert.ok(!uris(outsider).includes(doc));
});

test('graph mode: the one document that matches, though outdated, is returned first and marked', async () => {
  // ADR-001 alone says "10 seconds"; expansion adds current neighbours that match less.
  for (const max_tokens of [200, 300, 4000]) {
    const r = await kg
      .provider()
      .retrieve(kg.request('alice', '10 seconds', { retrieval_mode: 'graph', max_tokens }));
    const first = r.items[0];
    assert.equal(first?.source_uri, kg.corpus.uri('eng/adr/adr-001-timeouts.md'), `${max_tokens}`);
    assert.equal(first?.freshness, 'stale');
    assert.match(renderKnowledgeResult('10 seconds', r), /adr-001-timeouts\.md \(outdated\)/);
  }
});
