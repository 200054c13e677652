// Text2Cypher on a real Neo4j: off by default; when on, the guard refuses writes, the server
// refuses them again inside the read transaction, accepted queries are logged with the trace id,
// and their rows only ever name chunks, which are re-checked against the caller's ACL.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { guardCypher } from '../../src/knowledge/cypher-guard.ts';
import { KnowledgeQueryError, ReadRunner } from '../../src/knowledge/read-runner.ts';
import type { CypherGenerator } from '../../src/knowledge/text2cypher.ts';
import { createLogger } from '../../src/log/logger.ts';
import { BENIGN } from './cypher-cases.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

function t2c(generate: CypherGenerator, lines: string[] = []) {
  const log = createLogger('info', { write: (l: string) => lines.push(l) });
  return kg.provider({
    settings: { ...kg.settings, text2cypher: { enabled: true, maxRows: 25, maxHops: 3 } },
    generateCypher: generate,
    log,
  });
}

const inCorpus = () => `d.source_uri STARTS WITH '${kg.corpus.uriPrefix}'`;

async function countOf(cypher: string): Promise<number> {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  const rows = await runner.read((q) => q(cypher), { timeoutMs: 5000, phase: 'count' });
  return Number(rows[0]?.n);
}

test('text2cypher is off unless enabled', async () => {
  const r = await kg
    .provider({ generateCypher: async () => 'RETURN 1 AS x' })
    .retrieve(kg.request('alice', 'order', { retrieval_mode: 'text2cypher' }));
  assert.equal(r.answerable, false);
  assert.equal(r.failure?.kind, 'bad_query');
  assert.match(r.failure?.message ?? '', /not enabled/);
});

test('rows are re-checked against the ACL; the query is logged with the trace id', async () => {
  const lines: string[] = [];
  const p = t2c(
    async () =>
      `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE ${inCorpus()} RETURN c.chunk_id AS chunk_id`,
    lines,
  );
  const r = await p.retrieve(kg.request('alice', 'all chunks', { retrieval_mode: 'text2cypher' }));
  assert.ok(r.answerable);
  for (const item of r.items) {
    assert.ok(kg.corpus.acl[item.source_uri]?.includes(kg.corpus.groups.eng), item.source_uri);
    assert.ok(item.retrieval_scores.text2cypher);
  }
  const hidden = r.denied.find((d) => d.reason === 'text2cypher_not_permitted');
  assert.ok(hidden && hidden.count >= 3, 'sec chunks named by the query were dropped');
  const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'text2cypher query');
  assert.equal(logged?.trace_id, 'trace-alice');
  assert.match(logged?.cypher, /LIMIT 25$/);
});

test('Chunk nodes count as chunk ids; rows naming no chunk are unverifiable, never output', async () => {
  const nodes = await t2c(
    async () => `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE ${inCorpus()} RETURN c`,
  ).retrieve(kg.request('bob', 'x', { retrieval_mode: 'text2cypher' }));
  assert.ok(nodes.answerable);
  for (const item of nodes.items)
    assert.ok(kg.corpus.acl[item.source_uri]?.includes(kg.corpus.groups.sec), item.source_uri);
  const titles = await t2c(
    async () => `MATCH (d:Document) WHERE ${inCorpus()} RETURN d.title AS title`,
  ).retrieve(kg.request('bob', 'x', { retrieval_mode: 'text2cypher' }));
  assert.equal(titles.answerable, false);
  assert.ok(titles.denied.some((d) => d.reason === 'text2cypher_unverifiable' && d.count > 0));
});

test('a generated write is refused by the guard and the graph is unchanged', async () => {
  // This corpus's chunks and their partitions: other suites write to the same database meanwhile.
  const ours = `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE d.source_uri STARTS WITH '${kg.corpus.uriPrefix}'
    RETURN count(c) + sum(CASE WHEN c.acl_partition = 'public' THEN 1000000 ELSE 0 END) AS n`;
  const before = await countOf(ours);
  assert.ok(before > 0, 'the corpus has chunks');
  for (const cypher of [
    'MATCH (c:Chunk) DETACH DELETE c',
    "MATCH (c:Chunk) SET c.acl_partition = 'public' RETURN c.chunk_id AS chunk_id",
    "CALL apoc.cypher.runWrite('MATCH (n) DETACH DELETE n', {}) YIELD value RETURN value",
  ]) {
    const r = await t2c(async () => cypher).retrieve(
      kg.request('alice', 'x', { retrieval_mode: 'text2cypher' }),
    );
    assert.equal(r.failure?.kind, 'bad_query');
    assert.match(r.failure?.message ?? '', /refused/);
  }
  assert.equal(await countOf(ours), before);
});

test('the server refuses writes inside the provider’s read transaction even without the guard', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  for (const write of [
    "CREATE (n:Owned {by: 'test'}) RETURN n",
    "MERGE (n:Owned {by: 'test'}) RETURN n",
    "MATCH (c:Chunk) WITH c LIMIT 1 SET c.acl_partition = 'public' RETURN c",
    'MATCH (c:Chunk) WITH c LIMIT 1 DETACH DELETE c RETURN 1',
    'CALL { CREATE (n:Owned) RETURN n } RETURN n',
  ]) {
    await assert.rejects(
      runner.read((q) => q(write), { timeoutMs: 5000, phase: 'bypass' }),
      (err: unknown) =>
        err instanceof KnowledgeQueryError &&
        err.kind === 'error' &&
        /read access mode|not allowed/i.test(err.message),
      write,
    );
  }
  assert.equal(await countOf('MATCH (n:Owned) RETURN count(n) AS n'), 0);
  assert.equal(await countOf("MATCH (c:Chunk {acl_partition: 'public'}) RETURN count(c) AS n"), 0);
});

test('a slow query is stopped by the transaction timeout', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  await assert.rejects(
    runner.read(
      (q) => q('UNWIND range(1, 200000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x) AS n'),
      { timeoutMs: 150, phase: 'slow' },
    ),
    (err: unknown) => err instanceof KnowledgeQueryError && err.kind === 'timeout',
  );
});

test('every benign case, as the guard rewrites it, is valid Cypher the server runs', async () => {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  for (const [query] of BENIGN) {
    const verdict = guardCypher(query, { maxRows: 25, maxHops: 3 });
    assert.ok(verdict.ok, query);
    await runner.read((q) => q(verdict.cypher), { timeoutMs: 5000, phase: 'benign' });
  }
});
