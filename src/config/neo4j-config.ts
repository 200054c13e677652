// The knowledge graph's accounts from the environment: the bot's reader and the ingest command's
// writer (the knowledge settings themselves are src/knowledge/settings.ts).
import type { Neo4jConnection } from '../knowledge/settings.ts';
import { type Env, nonEmpty } from './layers.ts';

export function readNeo4j(
  env: Env,
  problems: string[],
): { neo4j: Neo4jConnection | null; neo4jWriter: Neo4jConnection | null } {
  const uri = nonEmpty(env.NEO4J_URI);
  const user = nonEmpty(env.NEO4J_USER);
  const password = env.NEO4J_PASSWORD;
  const writerUser = nonEmpty(env.NEO4J_WRITER_USER);
  const writerPassword = env.NEO4J_WRITER_PASSWORD;
  if (!uri) {
    if (user || password || writerUser)
      problems.push(
        'NEO4J_URI is required when NEO4J_USER or NEO4J_WRITER_USER is set (e.g. neo4j://graph.internal:7687)',
      );
    return { neo4j: null, neo4jWriter: null };
  }
  if (!/^(neo4j|bolt)(\+s|\+ssc)?:\/\//.test(uri))
    problems.push(
      `NEO4J_URI must start with neo4j://, neo4j+s://, bolt:// or bolt+s://, got "${uri}"`,
    );
  const database = nonEmpty(env.NEO4J_DATABASE);
  const extra = database ? { database } : {};
  let neo4j: Neo4jConnection | null = null;
  if (user && password) neo4j = { uri, user, password, ...extra };
  const neo4jWriter =
    writerUser && writerPassword
      ? { uri, user: writerUser, password: writerPassword, ...extra }
      : null;
  // The ingest command needs only the writer; the bot never uses the writer account.
  if (!neo4j && !neo4jWriter) {
    problems.push(
      'NEO4J_USER and NEO4J_PASSWORD (the read-only account the bot uses) are required when NEO4J_URI is set',
    );
  }
  return { neo4j, neo4jWriter };
}
