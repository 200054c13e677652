// Group memberships from `principals.yaml` ({principal_id: [group, …]}) into
// `(:Principal)-[:MEMBER_OF]->(:Group)`. A listed principal's memberships become exactly the list.
import type { Driver } from 'neo4j-driver';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { MetaError } from './document-meta.ts';

const principalsSchema = z.record(z.string().min(1), z.array(z.string().min(1)));

export function parsePrincipals(yamlText: string): Record<string, string[]> {
  const parsed = principalsSchema.safeParse(parseYaml(yamlText) ?? {});
  if (!parsed.success) {
    throw new MetaError(
      `principals.yaml: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

export async function syncPrincipals(
  driver: Driver,
  database: string,
  yamlText: string,
): Promise<number> {
  const entries = Object.entries(parsePrincipals(yamlText)).map(([principal_id, groups]) => ({
    principal_id,
    groups,
  }));
  const session = driver.session({ database });
  try {
    await session.executeWrite(async (tx) => {
      await tx.run(
        `UNWIND $entries AS e
         MERGE (p:Principal {principal_id: e.principal_id})
         WITH p, e
         OPTIONAL MATCH (p)-[m:MEMBER_OF]->(g:Group) WHERE NOT g.name IN e.groups
         DELETE m`,
        { entries },
      );
      await tx.run(
        `UNWIND $entries AS e
         MATCH (p:Principal {principal_id: e.principal_id})
         UNWIND e.groups AS name
         MERGE (g:Group {name: name})
         MERGE (p)-[:MEMBER_OF]->(g)`,
        { entries },
      );
    });
  } finally {
    await session.close();
  }
  return entries.length;
}
