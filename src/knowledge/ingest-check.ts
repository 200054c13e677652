// `kg:ingest --check`: what a run would change, read from the graph in read transactions and never
// written. A document is added (not in the graph, or only a placeholder a newer one superseded),
// updated (the fields that differ are named) or unchanged; a document under the URI prefix whose
// file is gone is removed with `--prune` and otherwise only listed.
import { type Driver, isInt } from 'neo4j-driver';
import type { DocumentPlan } from './document-plan.ts';

export interface DocumentChange {
  source_uri: string;
  kind: 'added' | 'updated' | 'unchanged';
  /**
   * What differs, for an update: `groups`, `deny`, `partition`, `title`, `content`, … and `vectors`
   * (chunks without a vector of the current embedder).
   */
  fields: string[];
}

interface Stored {
  title: unknown;
  updated_at: unknown;
  source_version: unknown;
  valid_from: unknown;
  valid_to: unknown;
  allowed_groups: unknown;
  acl_deny: unknown;
  acl_partitions: unknown;
  chunks: unknown;
  entities: unknown;
  unembedded: unknown;
}

const sorted = (v: unknown): string =>
  JSON.stringify(Array.isArray(v) ? [...v].map(String).sort() : []);
const scalar = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export async function diffDocument(
  driver: Driver,
  database: string,
  plan: DocumentPlan,
  model?: string,
): Promise<DocumentChange> {
  const session = driver.session({ database, defaultAccessMode: 'READ' });
  try {
    const res = await session.executeRead((tx) =>
      tx.run(
        `MATCH (d:Document {source_uri: $uri}) WHERE d.allowed_groups IS NOT NULL
         RETURN d {.title, .updated_at, .source_version, .valid_from, .valid_to, .allowed_groups,
           .acl_deny, .acl_partitions,
           chunks: [(c:Chunk)-[:PART_OF]->(d) | c.chunk_id],
           entities: [(e:Entity)-[:MENTIONED_IN]->(d) | e.name],
           unembedded: size([(c:Chunk)-[:PART_OF]->(d)
             WHERE $model IS NOT NULL AND coalesce(c.embedding_model, '') <> $model | 1])} AS d`,
        { uri: plan.source_uri, model: model ?? null },
      ),
    );
    const stored = res.records[0]?.get('d') as Stored | undefined;
    if (!stored) return { source_uri: plan.source_uri, kind: 'added', fields: [] };
    const fields: string[] = [];
    const differs = (name: string, a: string | null, b: string | null) => {
      if (a !== b) fields.push(name);
    };
    differs('title', scalar(stored.title), plan.title);
    differs('updated_at', scalar(stored.updated_at), plan.updated_at);
    differs('version', scalar(stored.source_version), plan.source_version);
    differs('valid_from', scalar(stored.valid_from), plan.valid_from);
    differs('valid_to', scalar(stored.valid_to), plan.valid_to);
    differs('groups', sorted(stored.allowed_groups), sorted(plan.allowed_groups));
    differs('deny', sorted(stored.acl_deny), sorted(plan.acl_deny));
    differs('partition', sorted(stored.acl_partitions), sorted(plan.acl_partitions));
    differs('content', sorted(stored.chunks), sorted(plan.chunks.map((c) => c.chunk_id)));
    differs('entities', sorted(stored.entities), sorted(plan.entities));
    const unembedded = isInt(stored.unembedded) ? stored.unembedded.toNumber() : 0;
    if (unembedded > 0) fields.push('vectors');
    return {
      source_uri: plan.source_uri,
      kind: fields.length > 0 ? 'updated' : 'unchanged',
      fields,
    };
  } finally {
    await session.close();
  }
}

/** Ingested documents under `uriPrefix` whose files this run did not see. */
export async function missingDocuments(
  driver: Driver,
  database: string,
  uriPrefix: string,
  seen: readonly string[],
): Promise<string[]> {
  const session = driver.session({ database, defaultAccessMode: 'READ' });
  try {
    const res = await session.executeRead((tx) =>
      tx.run(
        `MATCH (d:Document) WHERE d.source_uri STARTS WITH $prefix AND NOT d.source_uri IN $seen
           AND d.allowed_groups IS NOT NULL
         RETURN d.source_uri AS uri ORDER BY uri`,
        { prefix: uriPrefix, seen },
      ),
    );
    return res.records.map((r) => String(r.get('uri')));
  } finally {
    await session.close();
  }
}

/** Principals of `principals.yaml` whose graph memberships would change. */
export async function changedPrincipals(
  driver: Driver,
  database: string,
  wanted: Readonly<Record<string, readonly string[]>>,
): Promise<string[]> {
  const ids = Object.keys(wanted);
  if (ids.length === 0) return [];
  const session = driver.session({ database, defaultAccessMode: 'READ' });
  try {
    const res = await session.executeRead((tx) =>
      tx.run(
        `UNWIND $ids AS id
         OPTIONAL MATCH (:Principal {principal_id: id})-[:MEMBER_OF]->(g:Group)
         RETURN id, collect(DISTINCT g.name) AS groups`,
        { ids },
      ),
    );
    const now = new Map(res.records.map((r) => [String(r.get('id')), sorted(r.get('groups'))]));
    return ids.filter((id) => now.get(id) !== sorted([...new Set(wanted[id])])).sort();
  } finally {
    await session.close();
  }
}
