// ACL property test on a real Neo4j: 1,200 randomised requests (seeded PRNG, so a failure
// reproduces) over principals, words, retrieval modes (vector and hybrid through both ways of
// asking the vector index and through the ACL vector index, fulltext through both plans),
// allowed_scopes and budgets. No item may come from a document outside
// the caller's groups or outside the partitions they may search. The vector index is shared with
// every other corpus on the server, so its nearest neighbours are mostly chunks the caller may not
// see: the test checks that this is so, i.e. that the ACL had something to filter.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FulltextSearch } from '../../src/knowledge/fulltext-search.ts';
import { ReadRunner } from '../../src/knowledge/read-runner.ts';
import type { KnowledgeRequest, RetrievalMode } from '../../src/knowledge/types.ts';
import { VectorPlan } from '../../src/knowledge/vector-plan.ts';
import { VECTOR_INDEX } from '../../src/knowledge/vector-queries.ts';
import { mulberry32 } from '../support/prng.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

const RUNS = 1200;
const CONCURRENCY = 8;

const rng = mulberry32;

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

test(`${RUNS} randomised requests never return an item outside the caller's ACL`, async (t) => {
  const rand = rng(20260730);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const { corpus } = kg;
  const people = [...Object.keys(corpus.principals), `mallory-${corpus.tag}`];
  const allPartitions = [...Object.values(corpus.groups), 'public', '*'];
  const modes: RetrievalMode[] = ['fulltext', 'graph', 'text2cypher', 'vector', 'hybrid'];
  // Text2Cypher's "model" writes a query over the whole corpus: every row must be re-checked.
  // Latency is not under test here: a cold JVM compiling every query at once may take seconds.
  // No similarity floor: the ACL is under test, and every candidate the vectors find is kept.
  const deps = {
    settings: {
      ...kg.settings,
      phaseTimeoutMs: 20_000,
      text2cypher: { enabled: true, maxRows: 25, maxHops: 3 },
      vectorSearch: { ...kg.settings.vectorSearch, minSimilarity: -1, embedTimeoutMs: 20_000 },
    },
    embedder: kg.embedder,
    generateCypher: async (question: string) =>
      `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE d.source_uri STARTS WITH '${corpus.uriPrefix}' ` +
      `AND toLower(c.text) CONTAINS '${(question.split(' ')[0] ?? '').toLowerCase().replace(/'/g, '')}' ` +
      'RETURN c.chunk_id AS chunk_id',
  };
  // Each request is asked one of three ways: by the reader's partitions in the ACL indexes
  // (fulltext and vector, every reader), or filtered after the text index and the vector index
  // (every reader; the vector index asked by `SEARCH` or by the procedure).
  const providers = [
    kg.provider({
      ...deps,
      vectorSyntax: 'search',
      fulltext: new FulltextSearch({ narrowShare: 1 }),
      vectorPlan: new VectorPlan({ narrowShare: 1 }),
    }),
    kg.provider({
      ...deps,
      vectorSyntax: 'procedure',
      fulltext: new FulltextSearch({ narrowShare: 0 }),
    }),
    kg.provider({
      ...deps,
      vectorSyntax: 'search',
      fulltext: new FulltextSearch({ narrowShare: 0 }),
      vectorPlan: new VectorPlan({ narrowShare: 0 }),
    }),
  ];
  const provider = providers[0] as (typeof providers)[number];

  const requests: Array<{ req: KnowledgeRequest; groups: string[]; partitions: string[] }> = [];
  for (let i = 0; i < RUNS; i++) {
    const principal = pick(people);
    const words = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(corpus.vocabulary));
    const scopes =
      rand() < 0.5
        ? ['*']
        : Array.from({ length: Math.floor(rand() * 3) }, () => pick(allPartitions));
    const groups = corpus.principals[principal] ?? [];
    const own = new Set(groups);
    if (own.has(corpus.groups.eng)) own.add(corpus.groups.ops);
    const partitions = [...own].filter((p) => scopes.includes('*') || scopes.includes(p));
    requests.push({
      groups,
      partitions,
      req: {
        query: words.join(' '),
        principal_id: principal,
        allowed_scopes: scopes,
        retrieval_mode: pick(modes),
        max_tokens: 50 + Math.floor(rand() * 3000),
        timeout_ms: 20_000,
        freshness_required_at: rand() < 0.2 ? '2023-06-01T00:00:00Z' : null,
        trace_id: `prop-${i}`,
      },
    });
  }

  for (const mode of modes) {
    await provider.retrieve({
      ...(requests[0] as (typeof requests)[number]).req,
      retrieval_mode: mode,
    });
  }
  let items = 0;
  let answered = 0;
  const answeredBy = new Map<RetrievalMode, number>();
  let hiddenDropped = 0;
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const n = next++;
      const { req, groups, partitions } = requests[n] as (typeof requests)[number];
      const r = await (providers[n % providers.length] as typeof provider).retrieve(req);
      if (r.failure) failures.push(`${req.trace_id}: ${r.failure.kind} ${r.failure.message}`);
      if (r.retrieval_mode !== req.retrieval_mode)
        failures.push(`${req.trace_id}: ${req.retrieval_mode} ran as ${r.retrieval_mode}`);
      if (r.answerable) {
        answered++;
        answeredBy.set(r.retrieval_mode, (answeredBy.get(r.retrieval_mode) ?? 0) + 1);
      }
      for (const d of r.denied) {
        if (d.reason === 'expansion_not_permitted' || d.reason === 'text2cypher_not_permitted')
          hiddenDropped += d.count;
      }
      for (const item of r.items) {
        items++;
        const allowed = corpus.acl[item.source_uri] ?? [];
        const where = `${req.trace_id} ${req.principal_id} "${req.query}" ${req.retrieval_mode} → ${item.source_uri}`;
        assert.ok(
          allowed.some((g) => groups.includes(g)),
          `outside groups: ${where}`,
        );
        assert.ok(
          (corpus.partitions[item.source_uri] ?? []).some((p) => partitions.includes(p)),
          `outside partitions: ${where}`,
        );
        assert.ok(item.chunk_id && item.provenance_path.length > 0, `no provenance: ${where}`);
      }
      assert.ok(r.limits.used_tokens <= req.max_tokens, `over budget: ${req.trace_id}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  assert.deepEqual(failures, []);
  // Not vacuous: many requests were answered, and hidden material was reached and dropped.
  assert.ok(answered > RUNS / 4, `only ${answered} answered`);
  assert.ok(items > RUNS, `only ${items} items`);
  assert.ok(hiddenDropped > 0, 'no hidden path or row was ever met');
  for (const mode of modes) assert.ok((answeredBy.get(mode) ?? 0) > 0, `${mode} never answered`);
  // The nearest neighbours of the vector requests, unfiltered, include chunks their caller may not
  // see: the vector ACL was exercised, not bypassed by a corpus that is all visible.
  let hiddenNeighbours = 0;
  const runner = new ReadRunner(kg.writer, 'neo4j');
  const vectorRequests = requests.filter((x) => x.req.retrieval_mode === 'vector').slice(0, 20);
  for (const { req, groups } of vectorRequests) {
    const [vector] = await kg.embedder.embed([req.query], { purpose: 'query' });
    const rows = await runner.read(
      (q) =>
        q(
          `CALL db.index.vector.queryNodes($index, 50, $vector) YIELD node AS c
           MATCH (c)-[:PART_OF]->(d:Document) RETURN d.source_uri AS uri`,
          { index: VECTOR_INDEX, vector: Array.from(vector ?? []) },
        ),
      { timeoutMs: 20_000, phase: 'test' },
    );
    for (const { uri } of rows)
      if (!(corpus.acl[String(uri)] ?? []).some((g) => groups.includes(g))) hiddenNeighbours++;
  }
  assert.ok(hiddenNeighbours > 0, 'the vector index never returned a chunk to filter');
  t.diagnostic(
    `${answered} answered (${[...answeredBy].map(([m, n]) => `${m} ${n}`).join(', ')}), ${items} items checked, ${hiddenDropped} hidden paths/rows dropped, ${hiddenNeighbours} raw vector neighbours to filter`,
  );
});
