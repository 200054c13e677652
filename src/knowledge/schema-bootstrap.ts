// Graph model and its schema. Run by ingest with the writer account, never by the bot's reader.
//
//   (:Document {source_uri, title, updated_at, ingested_at, source_version, valid_from, valid_to,
//               superseded_by, allowed_groups, acl_partition})
//   (:Chunk {chunk_id, text, seq, acl_partition, embedding?})-[:PART_OF]->(:Document)
//   (:Claim {claim_id, statement})-[:SUPPORTED_BY]->(:Evidence {evidence_id, quote})
//   (:Evidence)-[:LOCATED_IN]->(:Chunk)
//   (:Entity {name})-[:MENTIONED_IN]->(:Document)
//   (:Principal {principal_id})-[:MEMBER_OF]->(:Group {name})
import { type Driver, int } from 'neo4j-driver';
import { FULLTEXT_INDEX } from './graph-queries.ts';

export const VECTOR_INDEX = 'chunk_embedding';

export interface SchemaOptions {
  database?: string;
  /** Chunk embedding size; 0 or absent: no vector index. */
  embeddingDimensions?: number;
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
  );
  const dims = opts.embeddingDimensions ?? 0;
  if (dims > 0) {
    if (!Number.isInteger(dims) || dims > 8192) throw new RangeError(`bad embedding size ${dims}`);
    out.push(
      `CREATE VECTOR INDEX ${VECTOR_INDEX} IF NOT EXISTS FOR (c:Chunk) ON c.embedding
       OPTIONS { indexConfig: { \`vector.dimensions\`: ${dims}, \`vector.similarity_function\`: 'cosine' } }`,
    );
  }
  return out;
}

/** The names of the indexes `schemaStatements` creates (a constraint's backing index has its name). */
export function schemaIndexNames(opts: SchemaOptions = {}): string[] {
  return schemaStatements(opts).flatMap((statement) => {
    const m = /^CREATE (?:CONSTRAINT|(?:FULLTEXT |VECTOR )?INDEX) (\w+) /.exec(statement);
    return m?.[1] ? [m[1]] : [];
  });
}

/** Creates constraints and indexes (writer account) and waits until they are online. */
export async function ensureSchema(driver: Driver, opts: SchemaOptions = {}): Promise<void> {
  const session = driver.session({ database: opts.database ?? 'neo4j' });
  try {
    // Schema commands cannot share a transaction with anything else: one each.
    for (const statement of schemaStatements(opts)) {
      await session.executeWrite((tx) => tx.run(statement));
    }
    await session.executeRead((tx) =>
      tx.run('CALL db.awaitIndexes($seconds)', { seconds: int(opts.awaitSeconds ?? 120) }),
    );
  } finally {
    await session.close();
  }
}
