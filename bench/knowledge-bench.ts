// Knowledge provider latency on a real Neo4j (test/support/neo4j-server.ts: NEO4J_TEST_URI or a
// private server): 100,000 chunks in 20 partitions, loaded with UNWIND batches. Reports the
// candidate query with the ACL pre-filter (a caller with 1 of 20 partitions) and without it, and
// the whole provider pipeline (fulltext and graph modes; one partition and all twenty).
import { randomBytes } from 'node:crypto';
import neo4j, { type Driver, int } from 'neo4j-driver';
import { searchCandidates } from '../src/knowledge/graph-queries.ts';
import { KnowledgeProvider, type RetrievalMode } from '../src/knowledge/index.ts';
import { luceneQuery } from '../src/knowledge/lucene-query.ts';
import { ReadRunner } from '../src/knowledge/read-runner.ts';
import { ensureSchema } from '../src/knowledge/schema-bootstrap.ts';
import { KNOWLEDGE_DEFAULTS } from '../src/knowledge/settings.ts';
import { silentLogger } from '../src/log/logger.ts';
import { neo4jForTests } from '../test/support/neo4j-server.ts';
import { mulberry32 } from '../test/support/prng.ts';
import { fmt, percentile } from './stats.ts';

const CHUNKS = 100_000;
const PARTITIONS = 20;
const DOCS_PER_PARTITION = 50;
const BATCH = 5_000;
const QUERIES = 300;
const WARMUP = 30;

const rng = mulberry32;
const rand = rng(7);
const COMMON = (
  'order payment timeout service deploy release incident review latency budget cluster ' +
  'database migration backup network security policy contract vendor invoice quarter report ' +
  'customer support ticket roadmap feature pipeline container schedule approval audit'
).split(' ');
const FILLER = 'the a of to and in for on with that is was by as at from this be are'.split(' ');
const RARE = Array.from({ length: 5000 }, (_, i) => `term${i.toString(36)}`);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const word = () =>
  rand() < 0.35
    ? pick(FILLER)
    : rand() < 0.7
      ? pick(COMMON)
      : (RARE[Math.floor(RARE.length * rand() ** 3)] as string);
const sentence = () => Array.from({ length: 10 + Math.floor(rand() * 10) }, word).join(' ');

async function load(driver: Driver, tag: string): Promise<number> {
  const started = performance.now();
  await ensureSchema(driver);
  const perDoc = CHUNKS / (PARTITIONS * DOCS_PER_PARTITION);
  const session = driver.session();
  try {
    const docs: Array<{ uri: string; partition: string; valid_from: string }> = [];
    for (let p = 0; p < PARTITIONS; p++) {
      for (let d = 0; d < DOCS_PER_PARTITION; d++) {
        docs.push({
          uri: `bench-${tag}://p${p}/d${d}`,
          partition: `p${p}-${tag}`,
          valid_from: '2024-01-01',
        });
      }
    }
    await session.executeWrite((tx) =>
      tx.run(
        `UNWIND $docs AS doc
         CREATE (:Document {source_uri: doc.uri, title: doc.uri, valid_from: doc.valid_from,
           updated_at: doc.valid_from, allowed_groups: [doc.partition], acl_partition: doc.partition,
           acl_partitions: [doc.partition]})`,
        { docs },
      ),
    );
    for (let start = 0; start < CHUNKS; start += BATCH) {
      const rows = Array.from({ length: BATCH }, (_, k) => {
        const n = start + k;
        const doc = docs[Math.floor(n / perDoc)] as (typeof docs)[number];
        return {
          id: `bench-${tag}-${n}`,
          seq: int(n % perDoc),
          uri: doc.uri,
          partition: doc.partition,
          text: `${sentence()}. ${sentence()}.`,
        };
      });
      await session.executeWrite((tx) =>
        tx.run(
          `UNWIND $rows AS r
           MATCH (d:Document {source_uri: r.uri})
           CREATE (c:Chunk {chunk_id: r.id, seq: r.seq, text: r.text, acl_partition: r.partition,
             acl_partitions: [r.partition]})-[:PART_OF]->(d)`,
          { rows },
        ),
      );
    }
    await session.executeRead((tx) => tx.run('CALL db.awaitIndexes(600)'));
  } finally {
    await session.close();
  }
  return performance.now() - started;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const line = (label: string, ms: number[]) =>
  `${label}: p50 ${fmt(percentile(ms, 50))}, p95 ${fmt(percentile(ms, 95))} (n=${ms.length})`;

export async function benchKnowledge(): Promise<string[]> {
  const server = await neo4jForTests();
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
  const tag = randomBytes(3).toString('hex');
  const lines: string[] = [];
  try {
    const loadMs = await load(driver, tag);
    lines.push(
      `load ${CHUNKS.toLocaleString('en')} chunks in ${PARTITIONS} partitions (UNWIND ×${BATCH}): ${(loadMs / 1000).toFixed(1)} s`,
    );
    const questions = Array.from(
      { length: QUERIES + WARMUP },
      () => `${pick(COMMON)} ${word()} ${pick(RARE)}`,
    );
    const one = { partitions: [`p3-${tag}`], groups: [`p3-${tag}`] };
    const runner = new ReadRunner(driver, 'neo4j');
    const candidates = (acl: boolean) => (i: number) =>
      runner.read(
        (q) =>
          searchCandidates(q, { lucene: luceneQuery(questions[i] ?? ''), limit: 12, ...one }, acl),
        { timeoutMs: 10_000, phase: 'bench' },
      );
    lines.push(
      line(
        'candidate query, ACL pre-filter (1 of 20 partitions)',
        await timed(QUERIES, candidates(true)),
      ),
    );
    lines.push(line('candidate query, no ACL filter', await timed(QUERIES, candidates(false))));
    const all = Array.from({ length: PARTITIONS }, (_, p) => `p${p}-${tag}`);
    const provider = new KnowledgeProvider({
      driver,
      log: silentLogger(),
      settings: { ...KNOWLEDGE_DEFAULTS, principalGroups: { one: one.groups, all } },
    });
    const ask = (principal: string, mode: RetrievalMode) => (i: number) =>
      provider.retrieve({
        query: questions[i] ?? '',
        principal_id: principal,
        allowed_scopes: ['*'],
        retrieval_mode: mode,
        max_tokens: 1500,
        timeout_ms: 10_000,
        trace_id: `bench-${i}`,
      });
    lines.push(
      line('provider.retrieve fulltext, 1 partition', await timed(QUERIES, ask('one', 'fulltext'))),
    );
    lines.push(
      line(
        'provider.retrieve fulltext, 20 partitions',
        await timed(QUERIES, ask('all', 'fulltext')),
      ),
    );
    lines.push(
      line('provider.retrieve graph, 1 partition', await timed(QUERIES, ask('one', 'graph'))),
    );
  } finally {
    // Only matters on a shared server (NEO4J_TEST_URI): a private one is thrown away.
    const session = driver.session();
    for (const [label, key, prefix] of [
      ['Chunk', 'chunk_id', `bench-${tag}-`],
      ['Document', 'source_uri', `bench-${tag}://`],
    ] as const) {
      await session
        .run(
          `MATCH (n:${label}) WHERE n.${key} STARTS WITH $prefix
           CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS`,
          { prefix },
        )
        .catch(() => undefined);
    }
    await session.close();
    await driver.close();
    await server.stop();
  }
  return lines;
}
