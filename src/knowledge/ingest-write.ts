// Writes one planned document in one write transaction (writer account only). MERGE on
// source_uri / chunk_id / claim_id / evidence_id makes a re-run rewrite the same nodes; chunks the
// file no longer has are deleted with their evidence; claims left without evidence go at the end.
import { type Driver, int, isInt, type ManagedTransaction } from 'neo4j-driver';
import type { DocumentPlan } from './document-plan.ts';
import { aclKeyCypher } from './vector-queries.ts';

export interface WriteOutcome {
  removedChunks: number;
}

async function count(tx: ManagedTransaction, cypher: string, params: object): Promise<number> {
  const r = await tx.run(cypher, params);
  const v: unknown = r.records[0]?.get(0);
  return isInt(v) ? v.toNumber() : Number(v ?? 0);
}

export async function writeDocument(
  driver: Driver,
  database: string,
  plan: DocumentPlan,
  ingestedAt: string,
): Promise<WriteOutcome> {
  const session = driver.session({ database });
  try {
    return await session.executeWrite(async (tx) => {
      const uri = plan.source_uri;
      // superseded_by is set by the newer document, so a re-ingest of this one keeps it.
      await tx.run(
        `MERGE (d:Document {source_uri: $uri})
         SET d.title = $title, d.updated_at = $updated_at, d.ingested_at = $ingested_at,
             d.source_version = $source_version, d.valid_from = $valid_from, d.valid_to = $valid_to,
             d.allowed_groups = $allowed_groups, d.acl_deny = $acl_deny,
             d.acl_partition = $acl_partition,
             d.acl_partitions = $acl_partitions`,
        { ...plan, uri, ingested_at: ingestedAt },
      );
      const removedChunks = await count(
        tx,
        `MATCH (old:Chunk)-[:PART_OF]->(:Document {source_uri: $uri})
         WHERE NOT old.chunk_id IN $keep
         OPTIONAL MATCH (ev:Evidence)-[:LOCATED_IN]->(old)
         DETACH DELETE ev, old
         RETURN count(DISTINCT old)`,
        { uri, keep: plan.chunks.map((c) => c.chunk_id) },
      );
      // acl_key: the partitions as one string, for the ACL vector index's filter (`vector-plan.ts`).
      await tx.run(
        `MATCH (d:Document {source_uri: $uri})
         UNWIND $chunks AS ch
         MERGE (c:Chunk {chunk_id: ch.chunk_id})
         SET c.text = ch.text, c.seq = ch.seq, c.heading = ch.heading, c.page = ch.page,
             c.acl_partition = $partition, c.acl_partitions = $partitions,
             c.acl_key = ${aclKeyCypher('$partitions')}
         MERGE (c)-[:PART_OF]->(d)`,
        {
          uri,
          partition: plan.acl_partition,
          partitions: plan.acl_partitions,
          chunks: plan.chunks.map((c) => ({
            ...c,
            seq: int(c.seq),
            page: c.page === null ? null : int(c.page),
          })),
        },
      );
      await tx.run(
        `UNWIND $claims AS cl
         MATCH (c:Chunk {chunk_id: cl.chunk_id})
         MERGE (claim:Claim {claim_id: cl.claim_id}) ON CREATE SET claim.statement = cl.statement
         MERGE (ev:Evidence {evidence_id: cl.evidence_id}) SET ev.quote = cl.statement
         MERGE (claim)-[:SUPPORTED_BY]->(ev)
         MERGE (ev)-[:LOCATED_IN]->(c)`,
        { claims: plan.claims },
      );
      await tx.run(
        `MATCH (d:Document {source_uri: $uri})
         OPTIONAL MATCH (d)<-[r:MENTIONED_IN]-(:Entity)
         DELETE r
         WITH DISTINCT d
         UNWIND $entities AS name
         MERGE (e:Entity {name: name})
         MERGE (e)-[:MENTIONED_IN]->(d)`,
        { uri, entities: plan.entities },
      );
      await tx.run(
        `MATCH (old:Document {superseded_by: $uri}) WHERE NOT old.source_uri IN $supersedes
         SET old.superseded_by = null`,
        { uri, supersedes: plan.supersedes },
      );
      // A superseded document not ingested yet gets a placeholder: no groups, so nobody sees it.
      await tx.run(
        `UNWIND $supersedes AS s
         MERGE (old:Document {source_uri: s})
         SET old.superseded_by = $uri`,
        { uri, supersedes: plan.supersedes },
      );
      return { removedChunks };
    });
  } finally {
    await session.close();
  }
}

/** Claims whose last evidence went away, and documents under `uriPrefix` not seen in this run. */
export async function sweep(
  driver: Driver,
  database: string,
  prune: { uriPrefix: string; seen: string[] } | undefined,
): Promise<{ orphanClaims: number; prunedDocuments: number }> {
  const session = driver.session({ database });
  try {
    return await session.executeWrite(async (tx) => {
      let prunedDocuments = 0;
      if (prune) {
        prunedDocuments = await count(
          tx,
          `MATCH (d:Document) WHERE d.source_uri STARTS WITH $prefix AND NOT d.source_uri IN $seen
             AND d.allowed_groups IS NOT NULL
           OPTIONAL MATCH (c:Chunk)-[:PART_OF]->(d)
           OPTIONAL MATCH (ev:Evidence)-[:LOCATED_IN]->(c)
           DETACH DELETE ev, c, d
           RETURN count(DISTINCT d)`,
          { prefix: prune.uriPrefix, seen: prune.seen },
        );
      }
      const orphanClaims = await count(
        tx,
        `MATCH (cl:Claim) WHERE NOT EXISTS { (cl)-[:SUPPORTED_BY]->() }
         DETACH DELETE cl
         RETURN count(cl)`,
        {},
      );
      return { orphanClaims, prunedDocuments };
    });
  } finally {
    await session.close();
  }
}
