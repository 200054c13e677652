// The knowledge feature's public surface: the provider and its contracts, the agent tool, the
// Text2Cypher guard, schema bootstrap and ingest (writer account only).
export { ALLOWED_PROCEDURES, type GuardVerdict, guardCypher } from './cypher-guard.ts';
export { type IngestOptions, type IngestReport, ingestDirectory } from './ingest.ts';
export { knowledgeSearchTool, renderKnowledgeResult } from './knowledge-tool.ts';
export { KnowledgeProvider, type KnowledgeProviderDeps } from './provider.ts';
export { KnowledgeQueryError } from './read-runner.ts';
export { ensureSchema, schemaStatements } from './schema-bootstrap.ts';
export {
  KNOWLEDGE_DEFAULTS,
  type KnowledgeSettings,
  knowledgeSettingsSchema,
  type Neo4jConnection,
} from './settings.ts';
export { type CypherGenerator, GRAPH_SCHEMA_HINT } from './text2cypher.ts';
export type * from './types.ts';
