// Knowledge provider latency on a real Neo4j (test/support/neo4j-server.ts: NEO4J_TEST_URI or a
// private server): 100,000 chunks in 20 partitions (a tenth of the documents shared by two) with
// 384-dimension vectors (`knowledge-corpus.ts`), loaded with UNWIND batches, and both vector
// indexes built over them (timed). The vectors are random unit vectors of all-MiniLM-L6-v2's size
// clustered around 200 random topics, not real embeddings (embedding 100k chunks here would take
// hours); they measure speed, not quality. Reports, in one run: the query embedding on its own (the
// real model when BENCH_EMBED_MODEL or TEST_EMBED_MODEL names its GGUF, 2 threads; else the hashing
// stand-in), the candidate query with and without the ACL pre-filter, the whole provider pipeline
// per mode (fulltext, vector, hybrid; graph) for a caller with 1 of 20 partitions, all 20, and one
// document (0.1 %), with each question's vector precomputed so only the graph work is timed, each
// mode "before" (every reader filtered after the text index and the vector index) and "now"
// interleaved on the same questions, with the load averages; the broad reader's vector query alone,
// before and now (`knowledge-vector-leg.ts`); and the recall@12 of ACL-filtered
// vector search against brute force over what each caller may see, by both plans.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import neo4j, { type Driver, int } from 'neo4j-driver';
import { FulltextSearch } from '../src/knowledge/fulltext-search.ts';
import { searchCandidates } from '../src/knowledge/graph-queries.ts';
import { KnowledgeProvider, type RetrievalMode } from '../src/knowledge/index.ts';
import { luceneQuery } from '../src/knowledge/lucene-query.ts';
import { ReadRunner } from '../src/knowledge/read-runner.ts';
import {
  ensureSchema,
  ensureVectorIndex,
  VECTOR_INDEX,
} from '../src/knowledge/schema-bootstrap.ts';
import { KNOWLEDGE_DEFAULTS } from '../src/knowledge/settings.ts';
import { VectorPlan } from '../src/knowledge/vector-plan.ts';
import { aclKeyCypher, VECTOR_ACL_INDEX } from '../src/knowledge/vector-queries.ts';
import { VectorSearch } from '../src/knowledge/vector-search.ts';
import type { Embedder } from '../src/llm/embeddings/embedder.ts';
import { silentLogger } from '../src/log/logger.ts';
import { HashingEmbedder } from '../test/support/hashing-embedder.ts';
import { neo4jForTests } from '../test/support/neo4j-server.ts';
import { benchEmbedModelPath } from './embed-model-path.ts';
import { loadLlamaEmbedder } from './eval/llama-embedder.ts';
import { COMMON, DIMS, dot, nearTopic, pick, RARE, sentence, word } from './knowledge-corpus.ts';
import { vectorLegLines } from './knowledge-vector-leg.ts';
import { fmt, percentile } from './stats.ts';
import { timed, timedPair, WARMUP } from './timed-pair.ts';

const CHUNKS = 100_000;
const PARTITIONS = 20;
const DOCS_PER_PARTITION = 50;
const BATCH = 2_000;
const QUERIES = 300;
const RECALL_QUERIES = 30;
const MODEL = 'bench-random-384';

interface Loaded {
  ms: number;
  partitionOf: string[][];
  vectors: Float32Array[];
}

/** Documents of partition p; the first document of the last partition is a partition of its own. */
async function load(driver: Driver, tag: string): Promise<Loaded> {
  const started = performance.now();
  const perDoc = CHUNKS / (PARTITIONS * DOCS_PER_PARTITION);
  // Every tenth document is shared with the next partition (two groups, no partition of its own).
  const docs: Array<{ uri: string; partitions: string[] }> = [];
  for (let p = 0; p < PARTITIONS; p++)
    for (let d = 0; d < DOCS_PER_PARTITION; d++)
      docs.push({
        uri: `bench-${tag}://p${p}/d${d}`,
        partitions:
          p === PARTITIONS - 1 && d === 0
            ? [`tiny-${tag}`]
            : d % 10 === 5
              ? [`p${p}-${tag}`, `p${(p + 1) % PARTITIONS}-${tag}`]
              : [`p${p}-${tag}`],
      });
  const partitionOf: string[][] = [];
  const vectors: Float32Array[] = [];
  const session = driver.session();
  try {
    await session.executeWrite((tx) =>
      tx.run(
        `UNWIND $docs AS doc
         CREATE (:Document {source_uri: doc.uri, title: doc.uri, valid_from: '2024-01-01',
           updated_at: '2024-01-01', allowed_groups: doc.partitions,
           acl_partition: doc.partitions[0], acl_partitions: doc.partitions})`,
        { docs },
      ),
    );
    for (let start = 0; start < CHUNKS; start += BATCH) {
      const rows = Array.from({ length: BATCH }, (_, k) => {
        const n = start + k;
        const doc = docs[Math.floor(n / perDoc)] as (typeof docs)[number];
        const v = nearTopic();
        partitionOf.push(doc.partitions);
        vectors.push(v);
        return {
          id: `bench-${tag}-${n}`,
          seq: int(n % perDoc),
          uri: doc.uri,
          partitions: doc.partitions,
          text: `${sentence()}. ${sentence()}.`,
          v: Array.from(v),
        };
      });
      await session.executeWrite((tx) =>
        tx.run(
          `UNWIND $rows AS r
           MATCH (d:Document {source_uri: r.uri})
           CREATE (c:Chunk {chunk_id: r.id, seq: r.seq, text: r.text, acl_partition: r.partitions[0],
             acl_partitions: r.partitions, acl_key: ${aclKeyCypher('r.partitions')},
             embedding_model: $model})-[:PART_OF]->(d)
           WITH c, r CALL db.create.setNodeVectorProperty(c, 'embedding', r.v)`,
          { rows, model: MODEL },
        ),
      );
    }
    await session.executeRead((tx) => tx.run('CALL db.awaitIndexes(600)'));
  } finally {
    await session.close();
  }
  return { ms: performance.now() - started, partitionOf, vectors };
}

/** Runs one statement (the vector index is dropped before the load and built after it). */
async function run(driver: Driver, cypher: string): Promise<void> {
  const session = driver.session();
  await session.run(cypher).finally(() => session.close());
}

async function buildVectorIndex(driver: Driver): Promise<number> {
  const started = performance.now();
  await ensureVectorIndex(driver, DIMS);
  await run(driver, 'CALL db.awaitIndexes(1800)');
  return performance.now() - started;
}

const line = (label: string, ms: number[]) =>
  `${label}: p50 ${fmt(percentile(ms, 50))}, p95 ${fmt(percentile(ms, 95))} (n=${ms.length})`;

/** The question's embedding alone: the real model when its GGUF is given, else the stand-in. */
async function embeddingTimes(questions: string[]): Promise<string> {
  const modelPath = benchEmbedModelPath();
  if (!modelPath) {
    const h = new HashingEmbedder(DIMS);
    const ms = await timed(QUERIES, (i) => h.embed([questions[i] ?? ''], { purpose: 'query' }));
    return line('query embedding, hashing stand-in (TEST_EMBED_MODEL not set)', ms);
  }
  const model = await loadLlamaEmbedder(modelPath, 2);
  try {
    const ms = await timed(100, (i) => model.embed([questions[i] ?? ''], { purpose: 'query' }));
    return line(`query embedding, ${modelPath.split('/').pop()} on 2 threads`, ms);
  } finally {
    await model.dispose();
  }
}

/** Recall@limit of ACL-filtered vector candidates against brute force over the caller's chunks. */
async function recall(
  runner: ReadRunner,
  loaded: Loaded,
  partitions: string[],
  queries: Float32Array[],
  plan: VectorPlan,
): Promise<{ recall: number; exact: number; k: number[] }> {
  const limit = KNOWLEDGE_DEFAULTS.candidateLimit;
  const search = new VectorSearch(KNOWLEDGE_DEFAULTS.vectorSearch.maxNeighbours, undefined, plan);
  const visible = loaded.partitionOf.flatMap((ps, i) =>
    ps.some((p) => partitions.includes(p)) ? [i] : [],
  );
  let found = 0;
  let exact = 0;
  const ks: number[] = [];
  for (const q of queries) {
    const best = visible
      .map((i) => ({ i, s: dot(q, loaded.vectors[i] as Float32Array) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, limit)
      .map(({ i }) => `${i}`);
    const params = { vector: Array.from(q), model: MODEL, limit, partitions, groups: partitions };
    const out = await runner.read((query) => search.search(query, params), {
      timeoutMs: 30_000,
      phase: 'bench',
    });
    if (out.via === 'exact') exact++;
    else ks.push(out.via.k);
    const got = new Set(out.hits.map((h) => h.hit.chunk_id.split('-').pop() ?? ''));
    found += best.filter((id) => got.has(id)).length;
  }
  return { recall: found / (queries.length * limit), exact, k: ks };
}

export async function benchKnowledge(): Promise<string[]> {
  const server = await neo4jForTests();
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
  const tag = randomBytes(3).toString('hex');
  const lines: string[] = [];
  try {
    await ensureSchema(driver);
    await run(driver, `DROP INDEX ${VECTOR_INDEX} IF EXISTS`);
    await run(driver, `DROP INDEX ${VECTOR_ACL_INDEX} IF EXISTS`);
    const loaded = await load(driver, tag);
    lines.push(
      `load ${CHUNKS.toLocaleString('en')} chunks with ${DIMS}-d vectors in ${PARTITIONS} partitions (UNWIND ×${BATCH}): ${(loaded.ms / 1000).toFixed(1)} s`,
    );
    const buildMs = await buildVectorIndex(driver);
    lines.push(
      `build the two vector indexes over them (create → online; ${VECTOR_INDEX}, ${VECTOR_ACL_INDEX}): ${(buildMs / 1000).toFixed(1)} s`,
    );
    const questions = Array.from(
      { length: QUERIES + WARMUP },
      () => `${pick(COMMON)} ${word()} ${pick(RARE)}`,
    );
    lines.push(await embeddingTimes(questions));
    // Each question's vector, precomputed: the provider's timings are the graph's work alone.
    const vectorOf = new Map(questions.map((q) => [q, nearTopic()]));
    const precomputed: Embedder = {
      id: MODEL,
      embed: async (texts) => texts.map((t) => vectorOf.get(t) ?? nearTopic()),
    };
    const one = [`p3-${tag}`];
    const all = Array.from({ length: PARTITIONS }, (_, p) => `p${p}-${tag}`).concat(`tiny-${tag}`);
    const tiny = [`tiny-${tag}`];
    const runner = new ReadRunner(driver, 'neo4j');
    const candidates = (acl: boolean) => (i: number) =>
      runner.read(
        (q) =>
          searchCandidates(
            q,
            { lucene: luceneQuery(questions[i] ?? ''), limit: 12, partitions: one, groups: one },
            acl,
          ),
        { timeoutMs: 10_000, phase: 'bench' },
      );
    lines.push(
      line(
        'candidate query, ACL pre-filter (1 of 20 partitions)',
        await timed(QUERIES, candidates(true)),
      ),
    );
    lines.push(line('candidate query, no ACL filter', await timed(QUERIES, candidates(false))));
    const deps = {
      driver,
      log: silentLogger(),
      embedder: precomputed,
      settings: { ...KNOWLEDGE_DEFAULTS, principalGroups: { one, all, tiny } },
    };
    // "before": every reader's legs as they were (the text index and the vector index without
    // the reader's partitions, the ACL filter after them).
    const before = new KnowledgeProvider({
      ...deps,
      fulltext: new FulltextSearch({ narrowShare: 0 }),
      vectorPlan: new VectorPlan({ narrowShare: 0 }),
    });
    const provider = new KnowledgeProvider(deps);
    let fellBack = 0;
    const ask =
      (principal: string, mode: RetrievalMode, p = provider) =>
      async (i: number) => {
        const r = await p.retrieve({
          query: questions[i] ?? '',
          principal_id: principal,
          allowed_scopes: ['*'],
          retrieval_mode: mode,
          max_tokens: 1500,
          timeout_ms: 10_000,
          trace_id: `bench-${i}`,
        });
        if (r.failure) throw new Error(`${mode} failed: ${r.failure.message}`);
        // A vector leg that fell back to words (e.g. a phase timeout on a loaded machine) is counted.
        if (r.retrieval_mode !== mode) fellBack++;
      };
    const who = { one: '1 of 20 partitions', all: '20 partitions', tiny: '1 document (0.1 %)' };
    const measure = async (label: string, fn: (i: number) => Promise<void>) => {
      fellBack = 0;
      const ms = await timed(QUERIES, fn);
      lines.push(`${line(label, ms)}${fellBack > 0 ? ` (${fellBack} fell back to fulltext)` : ''}`);
    };
    const loadNow = () =>
      `load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`;
    for (const [principal, label] of Object.entries(who)) {
      for (const mode of ['fulltext', 'vector', 'hybrid'] as const) {
        fellBack = 0;
        const at = loadNow();
        const [old, now] = await timedPair(
          QUERIES,
          ask(principal, mode, before),
          ask(principal, mode, provider),
        );
        const fell = fellBack > 0 ? ` (${fellBack} fell back to fulltext)` : '';
        lines.push(
          `provider.retrieve ${mode}, ${label}: before (ACL filter after each index) p50 ${fmt(percentile(old, 50))}, p95 ${fmt(percentile(old, 95))}; now p50 ${fmt(percentile(now, 50))}, p95 ${fmt(percentile(now, 95))} (n=${QUERIES} each, interleaved; ${at} → ${loadNow()})${fell}`,
        );
      }
    }
    await measure('provider.retrieve graph, 1 partition', ask('one', 'graph'));
    const legVectors = Array.from({ length: QUERIES }, nearTopic);
    lines.push(
      await vectorLegLines(runner, { label: who.all, partitions: all }, legVectors, MODEL, 24),
    );
    const recallQueries = Array.from({ length: RECALL_QUERIES }, nearTopic);
    for (const [parts, label] of [
      [one, who.one],
      [all, who.all],
      [tiny, who.tiny],
    ] as const) {
      for (const [plan, name] of [
        [new VectorPlan({ narrowShare: 0 }), 'before'],
        [new VectorPlan(), 'now'],
      ] as const) {
        const r = await recall(runner, loaded, [...parts], recallQueries, plan);
        const ks = r.k.length > 0 ? `k ${Math.min(...r.k)}–${Math.max(...r.k)}` : 'no index query';
        lines.push(
          `vector recall@${KNOWLEDGE_DEFAULTS.candidateLimit} vs brute force, ${label}, ${name}: ${r.recall.toFixed(3)} (n=${RECALL_QUERIES}; ${ks}, ${r.exact} scored directly)`,
        );
      }
    }
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
