// Shared set-up of the knowledge tests: a real Neo4j (test/support/neo4j-server.ts), the corpus
// written to a temp dir and ingested with the writer (admin) account (chunk vectors by a hashing
// embedder of the real model's size), and a reader driver for the provider (the `reader` user when
// the server has one).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { closeExtractWorkers } from '../../src/attachments/extract/index.ts';
import { type IngestReport, ingestDirectory } from '../../src/knowledge/ingest.ts';
import { KnowledgeProvider, type KnowledgeProviderDeps } from '../../src/knowledge/provider.ts';
import { KNOWLEDGE_DEFAULTS, type KnowledgeSettings } from '../../src/knowledge/settings.ts';
import type { KnowledgeRequest } from '../../src/knowledge/types.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { type Corpus, writeCorpus } from '../fixtures/knowledge/corpus.ts';
import { HashingEmbedder } from '../support/hashing-embedder.ts';
import { neo4jForTests, type TestNeo4j } from '../support/neo4j-server.ts';

export interface KgHarness {
  server: TestNeo4j;
  writer: Driver;
  reader: Driver;
  corpus: Corpus;
  report: IngestReport;
  settings: KnowledgeSettings;
  /** The embedder the corpus was ingested with; providers get it only when asked. */
  embedder: HashingEmbedder;
  provider(extra?: Partial<KnowledgeProviderDeps>): KnowledgeProvider;
  request(principal: string, query: string, extra?: Partial<KnowledgeRequest>): KnowledgeRequest;
  close(): Promise<void>;
}

/** all-MiniLM-L6-v2's size, so tests and the benchmark share one vector index on one server. */
export const TEST_DIMENSIONS = 384;

export async function startKg(): Promise<KgHarness> {
  const server = await neo4jForTests();
  const writer = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
  const login = server.reader ?? { user: server.user, password: server.password };
  const reader = neo4j.driver(server.uri, neo4j.auth.basic(login.user, login.password));
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-kg-'));
  const tag = randomBytes(4).toString('hex');
  const corpus = await writeCorpus(dir, tag);
  const embedder = new HashingEmbedder(TEST_DIMENSIONS, `hashing-${TEST_DIMENSIONS}`);
  const report = await ingestDirectory({
    driver: writer,
    root: dir,
    uriPrefix: corpus.uriPrefix,
    embedder,
  });
  const settings: KnowledgeSettings = {
    ...KNOWLEDGE_DEFAULTS,
    allowedScopes: ['*'],
    // A loaded test machine can take longer than the product's 5 s deadline; the deadline's own
    // behaviour is tested with its own settings.
    timeoutMs: 20_000,
    principalGroups: corpus.configGroups,
    // eng members may also search the ops partition (where the shared on-call page lives).
    groupPartitions: { [corpus.groups.eng]: [corpus.groups.ops] },
    text2cypher: { ...KNOWLEDGE_DEFAULTS.text2cypher },
  };
  return {
    server,
    writer,
    reader,
    corpus,
    report,
    settings,
    embedder,
    provider: (extra = {}) =>
      new KnowledgeProvider({ driver: reader, settings, log: silentLogger(), ...extra }),
    request: (principal, query, extra = {}) => ({
      query,
      principal_id: `${principal}-${tag}`,
      allowed_scopes: ['*'],
      retrieval_mode: 'fulltext',
      max_tokens: 4000,
      timeout_ms: 10_000,
      freshness_required_at: null,
      trace_id: `trace-${principal}`,
      ...extra,
    }),
    close: async () => {
      await reader.close();
      await writer.close();
      await closeExtractWorkers();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
