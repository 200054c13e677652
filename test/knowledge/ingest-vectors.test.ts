// `kg:ingest` with an embedder on a real Neo4j: every chunk gets a vector with the embedder's id,
// a second run embeds nothing, another model's run embeds every chunk again (and `--check` says
// so first), and an embedder that is down leaves the documents searchable by words.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ingestDirectory } from '../../src/knowledge/ingest.ts';
import { ReadRunner } from '../../src/knowledge/read-runner.ts';
import { HashingEmbedder } from '../support/hashing-embedder.ts';
import { type KgHarness, startKg, TEST_DIMENSIONS } from './kg-harness.ts';

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

/** How many of the corpus's chunks have a vector of each model (and of which sizes). */
async function vectors(): Promise<Record<string, number[]>> {
  const rows = await new ReadRunner(kg.reader, 'neo4j').read(
    (q) =>
      q(
        `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE d.source_uri STARTS WITH $prefix
         RETURN coalesce(c.embedding_model, 'none') AS model,
           collect(coalesce(size(c.embedding), 0)) AS sizes`,
        { prefix: kg.corpus.uriPrefix },
      ),
    { timeoutMs: 10_000, phase: 'test' },
  );
  return Object.fromEntries(rows.map((r) => [String(r.model), r.sizes as number[]]));
}

const ingest = (embedder: HashingEmbedder, check = false) =>
  ingestDirectory({
    driver: kg.writer,
    root: kg.corpus.root,
    uriPrefix: kg.corpus.uriPrefix,
    embedder,
    check,
  });

test('every chunk is stored with a vector of the embedder and its id; a second run embeds nothing', async () => {
  const first = kg.report.vectors;
  assert.equal(first?.embedded, kg.report.chunks);
  assert.equal(first?.pending, 0);
  assert.equal(first?.dimensions, TEST_DIMENSIONS);
  const stored = await vectors();
  assert.deepEqual(Object.keys(stored), [kg.embedder.id]);
  assert.equal(stored[kg.embedder.id]?.length, kg.report.chunks);
  assert.ok(stored[kg.embedder.id]?.every((n) => n === TEST_DIMENSIONS));
  const again = await ingest(kg.embedder);
  assert.equal(again.vectors?.embedded, 0);
  assert.equal(again.vectors?.vectorIndex, 'kept');
});

test('another model: --check names the documents to embed again, and the run replaces every vector', async () => {
  // Named per run: the server is shared, and other runs' chunks must not carry this model's id.
  const other = new HashingEmbedder(TEST_DIMENSIONS, `another-model-${kg.corpus.tag}`);
  const check = await ingest(other, true);
  assert.equal(check.vectors, undefined, 'a check embeds nothing');
  assert.equal(check.changes?.updated.length, kg.report.documents);
  assert.ok(check.changes?.updated.every((u) => u.fields.includes('vectors')));
  assert.deepEqual(Object.keys(await vectors()), [kg.embedder.id], 'and writes nothing');
  const run = await ingest(other);
  assert.equal(run.vectors?.embedded, kg.report.chunks);
  const stored = await vectors();
  assert.deepEqual(Object.keys(stored), [other.id]);
  assert.equal((await ingest(other, true)).changes?.updated.length, 0);
});

test('an embedder that is down: the documents are ingested, the chunks wait for their vectors', async () => {
  const down = new HashingEmbedder(TEST_DIMENSIONS, `a-third-model-${kg.corpus.tag}`);
  down.failWith = new Error('connect ECONNREFUSED 127.0.0.1:8001');
  const run = await ingest(down);
  assert.equal(run.documents, kg.report.documents);
  assert.equal(run.vectors?.embedded, 0);
  assert.equal(run.vectors?.pending, kg.report.chunks);
  assert.match(run.vectors?.failure ?? '', /ECONNREFUSED/);
  // Its search falls back to words: the documents are still found.
  const r = await kg
    .provider({ embedder: down })
    .retrieve(kg.request('alice', 'order API timeout', { retrieval_mode: 'hybrid' }));
  assert.equal(r.retrieval_mode, 'fulltext');
  assert.ok(r.answerable);
});
