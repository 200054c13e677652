// Graph model and its schema. Run by ingest with the writer account, never by the bot's reader.
//
//   (:Document {source_uri, title, updated_at, ingested_at, source_version, valid_from, valid_to,
//               superseded_by, allowed_groups, acl_partition})
//   (:Chunk {chunk_id, text, seq, acl_partition, acl_partitions, acl_key, embedding?,
//            embedding_model?})-[:PART_OF]->(:Document)
//   (:Claim {claim_id, statement})-[:SUPPORTED_BY]->(:Evidence {evidence_id, quote})
//   (:Evidence)-[:LOCATED_IN]->(:Chunk)
//   (:Entity {name})-[:MENTIONED_IN]->(:Document)
//   (:Principal {principal_id})-[:MEMBER_OF]->(:Group {name})
import { type Driver, int, isInt, type Session } from 'neo4j-driver';
import { partitionsCypher } from './acl.ts';
import { FULLTEXT_ACL_INDEX, FULLTEXT_INDEX } from './graph-queries.ts';
import {
  aclFilterOf,
  aclKeyCypher,
  VECTOR_ACL_INDEX,
  VECTOR_INDEX,
  vectorSyntaxOf,
} from './vector-queries.ts';

export { VECTOR_ACL_INDEX, VECTOR_INDEX };

export interface SchemaOptions {
  database?: string;
  /** Chunk embedding size; 0 or absent: no vector index. */
  embeddingDimensions?: number;
  /** Index `embedding_model` beside the vector, for filtering inside the index (Neo4j 2026.01+). */
  vectorFilter?: boolean;
  /** Also the ACL vector index (Neo4j 2026.06+: `IN` inside the search). */
  vectorAcl?: boolean;
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
  if (dims > 0) {
    out.push(vectorIndexStatement(dims, opts.vectorFilter ? VECTOR_INDEX : ''));
    if (opts.vectorAcl) out.push(vectorIndexStatement(dims, VECTOR_ACL_INDEX, VECTOR_ACL_INDEX));
  }
  return out;
}

/** The properties beside the vector: the model id (`chunk_embedding`), and `acl_key` (the ACL index). */
function filterProperties(filterOf: string): string[] {
  if (filterOf === VECTOR_ACL_INDEX) return ['embedding_model', 'acl_key'];
  return filterOf === VECTOR_INDEX ? ['embedding_model'] : [];
}

/**
 * A chunk vector index: cosine, the model's size, and (`filterOf`, where the server can filter
 * inside the index) the properties beside the vector: the model id, so a search never compares
 * another model's vectors, and for the ACL index the chunk's partitions (`acl_key`). Unquantized:
 * with the server's default (binary on Neo4j 2026) the 12 nearest of 100k chunks held 53 % of the
 * true 12 nearest, and 88 % of them among the nearest 48, against 100 % unquantized at about the
 * same speed; the price is the vectors' full size in each index (~1.5 KB per chunk at 384
 * dimensions).
 */
export function vectorIndexStatement(dims: number, filterOf = '', name = VECTOR_INDEX): string {
  if (!Number.isInteger(dims) || dims < 1 || dims > 4096)
    throw new RangeError(`bad embedding size ${dims}`);
  const props = filterProperties(filterOf);
  return `${props.length > 0 ? 'CYPHER 25 ' : ''}CREATE VECTOR INDEX ${name} IF NOT EXISTS FOR (c:Chunk) ON c.embedding${
    props.length > 0 ? ` WITH [${props.map((p) => `c.${p}`).join(', ')}]` : ''
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

const worst = (a: VectorIndexChange, b: VectorIndexChange): VectorIndexChange =>
  a === 'recreated' || b === 'recreated'
    ? 'recreated'
    : a === 'created' || b === 'created'
      ? 'created'
      : 'kept';

/**
 * Makes the chunk vector indexes fit `dims` (writer account): `chunk_embedding` (with the model id
 * where the server can filter on it) and, where the server can filter with `IN` (2026.06+), the ACL
 * index `chunk_embedding_acl` (the model id and `acl_key`; chunks written before `acl_key` get it
 * first). An index of another size (the model changed: its vectors were made by a model no longer
 * in use, and `kg:ingest` embeds the chunks again), without the properties the server could filter
 * on, or quantized is dropped and built again. Reports the larger change of the two.
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
    const kernel = String(version.records[0]?.get('v') ?? '');
    const filter = vectorSyntaxOf(kernel) === 'search';
    const main = await fitVectorIndex(session, dims, filter ? VECTOR_INDEX : '', VECTOR_INDEX);
    if (!aclFilterOf(kernel)) return main;
    await backfillAclKeys(session);
    return worst(main, await fitVectorIndex(session, dims, VECTOR_ACL_INDEX, VECTOR_ACL_INDEX));
  } finally {
    await session.close();
  }
}

/** One vector index: kept when it fits, else (re)created. `filterOf` names whose properties it wants. */
async function fitVectorIndex(
  session: Session,
  dims: number,
  filterOf: string,
  name: string,
): Promise<VectorIndexChange> {
  const wanted = filterProperties(filterOf);
  const shown = await session.executeRead((tx) =>
    tx.run(
      'SHOW VECTOR INDEXES YIELD name, properties, options WHERE name = $name RETURN properties, options',
      { name },
    ),
  );
  const row = shown.records[0];
  let change: VectorIndexChange = 'created';
  if (row) {
    const properties = row.get('properties') as unknown;
    const config = (row.get('options') as { indexConfig?: Record<string, unknown> }).indexConfig;
    const size = config?.['vector.dimensions'];
    const sizeNow = isInt(size) ? size.toNumber() : Number(size);
    const filtered =
      Array.isArray(properties) && wanted.every((p) => (properties as unknown[]).includes(p));
    const quantization = config?.['vector.quantization.type'];
    const quantized =
      config?.['vector.quantization.enabled'] === true ||
      (typeof quantization === 'string' && quantization.toUpperCase() !== 'NONE');
    if (sizeNow === dims && filtered && !quantized) return 'kept';
    await session.executeWrite((tx) => tx.run(`DROP INDEX ${name}`));
    change = 'recreated';
  }
  await session.executeWrite((tx) => tx.run(vectorIndexStatement(dims, filterOf, name)));
  return change;
}

/** `acl_key` on chunks written before it (the writer sets it on every chunk it writes). */
async function backfillAclKeys(session: Session): Promise<void> {
  // An implicit transaction: CALL … IN TRANSACTIONS cannot run inside an explicit one.
  await session.run(
    `MATCH (c:Chunk) WHERE c.acl_key IS NULL
     CALL (c) { SET c.acl_key = ${aclKeyCypher(partitionsCypher('c'))} } IN TRANSACTIONS OF 10000 ROWS`,
  );
}
