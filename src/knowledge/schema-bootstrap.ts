// Graph model and its schema. Run by ingest with the writer account, never by the bot's reader.
//
//   (:Document {source_uri, title, updated_at, ingested_at, source_version, valid_from, valid_to,
//               superseded_by, allowed_groups, acl_partition})
//   (:Chunk {chunk_id, text, seq, acl_partition, embedding?, embedding_model?})-[:PART_OF]->(:Document)
//   (:Claim {claim_id, statement})-[:SUPPORTED_BY]->(:Evidence {evidence_id, quote})
//   (:Evidence)-[:LOCATED_IN]->(:Chunk)
//   (:Entity {name})-[:MENTIONED_IN]->(:Document)
//   (:Principal {principal_id})-[:MEMBER_OF]->(:Group {name})
import { type Driver, int, isInt } from 'neo4j-driver';
import { FULLTEXT_ACL_INDEX, FULLTEXT_INDEX } from './graph-queries.ts';
import { VECTOR_INDEX, vectorSyntaxOf } from './vector-queries.ts';

export { VECTOR_INDEX };

export interface SchemaOptions {
  database?: string;
  /** Chunk embedding size; 0 or absent: no vector index. */
  embeddingDimensions?: number;
  /** Index `embedding_model` beside the vector, for filtering inside the index (Neo4j 2026.01+). */
  vectorFilter?: boolean;
  /** How long to wait for new indexes to come online, seconds. */
  awaitSeconds?: number;
}

const UNIQUE: Array<[name: string, label: string, property: string]> = [
  ['document_source_uri', 'Document', 'source_uri'],
  ['chunk_chunk_id', 'Chunk', 'chunk_id'],
  ['claim_claim_id', 'Claim', 'claim_id'],
  ['evidence_evidence_id', 'Evidence', 'evidence_id'],
  ['entity_name', 'Entity', 'name'],
  ['principal_principal_id', 'Principal', 'principal_id'],
  ['group_name', 'Group', 'name'],
];

/** The statements `ensureSchema` runs, in order (all idempotent: IF NOT EXISTS). */
export function schemaStatements(opts: SchemaOptions = {}): string[] {
  const out = UNIQUE.map(
    ([name, label, prop]) =>
      `CREATE CONSTRAINT ${name} IF NOT EXISTS FOR (n:${label}) REQUIRE n.${prop} IS UNIQUE`,
  );
  // Partition lookups (prune, audits, per-partition counts) and the candidate filter's fallback.
  out.push(
    'CREATE INDEX chunk_acl_partition IF NOT EXISTS FOR (c:Chunk) ON (c.acl_partition)',
    'CREATE INDEX document_acl_partition IF NOT EXISTS FOR (d:Document) ON (d.acl_partition)',
    'CREATE INDEX document_superseded_by IF NOT EXISTS FOR (d:Document) ON (d.superseded_by)',
    // cjk: Hangul and Han text become bigrams, so Korean words match without a morphological analyser.
    `CREATE FULLTEXT INDEX ${FULLTEXT_INDEX} IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text]
     OPTIONS { indexConfig: { \`fulltext.analyzer\`: 'cjk' } }`,
    // The same text beside the chunk's partitions, for readers who may see little: their query
    // names their partitions, so the index skips everyone else's chunks (`narrowLucene`). Same
    // analyzer, so the words score as in `chunk_text`.
    `CREATE FULLTEXT INDEX ${FULLTEXT_ACL_INDEX} IF NOT EXISTS FOR (c:Chunk)
     ON EACH [c.text, c.acl_partitions, c.acl_partition]
     OPTIONS { indexConfig: { \`fulltext.analyzer\`: 'cjk' } }`,
  );
  const dims = opts.embeddingDimensions ?? 0;
  if (dims > 0) out.push(vectorIndexStatement(dims, opts.vectorFilter ?? false));
  return out;
}

/**
 * The chunk vector index: cosine, the model's size, and (where the server can filter inside the
 * index) the model id beside the vector, so a search never compares another model's vectors.
 * Unquantized: with the server's default (binary on Neo4j 2026) the 12 nearest of 100k chunks
 * held 53 % of the true 12 nearest, and 88 % of them among the nearest 48, against 100 % unquantized
 * at about the same speed; the price is the vectors' full size in the index (~1.5 KB per chunk at
 * 384 dimensions).
 */
export function vectorIndexStatement(dims: number, filter: boolean): string {
  if (!Number.isInteger(dims) || dims < 1 || dims > 4096)
    throw new RangeError(`bad embedding size ${dims}`);
  return `${filter ? 'CYPHER 25 ' : ''}CREATE VECTOR INDEX ${VECTOR_INDEX} IF NOT EXISTS FOR (c:Chunk) ON c.embedding${
    filter ? ' WITH [c.embedding_model]' : ''
  }
     OPTIONS { indexConfig: { \`vector.dimensions\`: ${dims}, \`vector.similarity_function\`: 'cosine',
       \`vector.quantization.enabled\`: false } }`;
}

/** The names of the indexes `schemaStatements` creates (a constraint's backing index has its name). */
export function schemaIndexNames(opts: SchemaOptions = {}): string[] {
  return schemaStatements(opts).flatMap((statement) => {
    const m = /^(?:CYPHER 25 )?CREATE (?:CONSTRAINT|(?:FULLTEXT |VECTOR )?INDEX) (\w+) /.exec(
      statement,
    );
    return m?.[1] ? [m[1]] : [];
  });
}

/** Creates constraints and indexes (writer account) and waits until they are online. */
export async function ensureSchema(driver: Driver, opts: SchemaOptions = {}): Promise<void> {
  const session = driver.session({ database: opts.database ?? 'neo4j' });
  try {
    // Schema commands cannot share a transaction with anything else: one each.
    for (const statement of schemaStatements({ ...opts, embeddingDimensions: 0 })) {
      await session.executeWrite((tx) => tx.run(statement));
    }
  } finally {
    await session.close();
  }
  const dims = opts.embeddingDimensions ?? 0;
  if (dims > 0) await ensureVectorIndex(driver, dims, opts);
  await awaitIndexes(driver, opts);
}

async function awaitIndexes(driver: Driver, opts: SchemaOptions): Promise<void> {
  const session = driver.session({ database: opts.database ?? 'neo4j' });
  try {
    await session.executeRead((tx) =>
      tx.run('CALL db.awaitIndexes($seconds)', { seconds: int(opts.awaitSeconds ?? 120) }),
    );
  } finally {
    await session.close();
  }
}

export type VectorIndexChange = 'created' | 'recreated' | 'kept';

/**
 * Makes the chunk vector index fit `dims` (writer account). An index of another size (the model
 * changed: its vectors were made by a model no longer in use, and `kg:ingest` embeds the chunks
 * again), without the model id the server could filter on, or quantized, is dropped and built again.
 */
export async function ensureVectorIndex(
  driver: Driver,
  dims: number,
  opts: SchemaOptions = {},
): Promise<VectorIndexChange> {
  const session = driver.session({ database: opts.database ?? 'neo4j' });
  try {
    const version = await session.executeRead((tx) =>
      tx.run(
        "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v",
      ),
    );
    const filter = vectorSyntaxOf(String(version.records[0]?.get('v') ?? '')) === 'search';
    const shown = await session.executeRead((tx) =>
      tx.run(
        'SHOW VECTOR INDEXES YIELD name, properties, options WHERE name = $name RETURN properties, options',
        { name: VECTOR_INDEX },
      ),
    );
    const row = shown.records[0];
    let change: VectorIndexChange = 'created';
    if (row) {
      const properties = row.get('properties') as unknown;
      const config = (row.get('options') as { indexConfig?: Record<string, unknown> }).indexConfig;
      const size = config?.['vector.dimensions'];
      const sizeNow = isInt(size) ? size.toNumber() : Number(size);
      const filtered = Array.isArray(properties) && properties.includes('embedding_model');
      const quantization = config?.['vector.quantization.type'];
      const quantized =
        config?.['vector.quantization.enabled'] === true ||
        (typeof quantization === 'string' && quantization.toUpperCase() !== 'NONE');
      if (sizeNow === dims && (filtered || !filter) && !quantized) return 'kept';
      await session.executeWrite((tx) => tx.run(`DROP INDEX ${VECTOR_INDEX}`));
      change = 'recreated';
    }
    await session.executeWrite((tx) => tx.run(vectorIndexStatement(dims, filter)));
    return change;
  } finally {
    await session.close();
  }
}
