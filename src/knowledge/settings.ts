// Knowledge settings with their defaults declared once. The lead plugs `knowledgeSettingsSchema`
// into src/config/schema.ts as `knowledge:` and the defaults into config/default.yaml; the
// connection (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD) comes from the environment through config.
import { z } from 'zod';
import type { RetrievalMode } from './types.ts';

export interface Text2CypherSettings {
  /** Off by default: generated Cypher runs only when this is true (and a generator is wired). */
  enabled: boolean;
  /** LIMIT forced onto every generated query (appended, or lowered to this). */
  maxRows: number;
  /** Longest variable-length pattern a generated query may use. */
  maxHops: number;
}

/** Embedding search over chunks (`vector` and `hybrid` modes); used only with an embedder. */
export interface VectorSearchSettings {
  /**
   * Cosine similarity a chunk needs to the question to be evidence at all; chunks below it are
   * dropped in `vector` and `hybrid` modes (a lexical hit too), so an unrelated question is not
   * answerable. Depends on the model: all-MiniLM-L6-v2 scores unrelated text near 0.1.
   */
  minSimilarity: number;
  /** How long the question's embedding may take before the search goes by words alone. */
  embedTimeoutMs: number;
  /** Reciprocal-rank fusion constant: fused = Σ 1 / (rrfK + rank). */
  rrfK: number;
  /**
   * Most nearest neighbours one vector query asks the index for before the ACL filter; a caller
   * who may see too little to be found among them gets their chunks scored directly.
   */
  maxNeighbours: number;
}

export interface KnowledgeSettings {
  database: string;
  defaultMode: RetrievalMode;
  maxTokens: number;
  timeoutMs: number;
  /** Ceiling of one graph query inside a request; the request deadline may cut it shorter. */
  phaseTimeoutMs: number;
  /** Passages taken from each index (fulltext, vector) per request, after the ACL filter. */
  candidateLimit: number;
  /** Extra passages graph expansion may add. */
  expansionLimit: number;
  /** Partitions the chat surfaces may expose; `'*'` means all of the caller's. */
  allowedScopes: string[];
  /** Principal id → groups, merged with `(:Principal)-[:MEMBER_OF]->(:Group)` from the graph. */
  principalGroups: Record<string, string[]>;
  /** Group → extra partitions it may search. Every group also searches the partition of its own name. */
  groupPartitions: Record<string, string[]>;
  text2cypher: Text2CypherSettings;
  /**
   * Size the embedder's vectors must have (a query or chunk vector of another size is refused and
   * the search goes by words); 0: the model's own, whatever it is.
   */
  embeddingDimensions: number;
  vectorSearch: VectorSearchSettings;
  /** Memberships of Slack user groups and Discord roles, synced for the knowledge ACL. */
  groupSync: { enabled: boolean; intervalMinutes: number };
  /**
   * Platforms whose principals are in their workspace's `everyone` group. Slack is left out by
   * default: a Slack Connect channel's outside members would count as the host workspace's.
   */
  everyoneGroups: string[];
}

export const KNOWLEDGE_DEFAULTS = {
  database: 'neo4j',
  // Fulltext when no embedder is configured.
  defaultMode: 'hybrid',
  maxTokens: 1500,
  timeoutMs: 5000,
  phaseTimeoutMs: 3000,
  candidateLimit: 12,
  expansionLimit: 12,
  allowedScopes: ['*'],
  principalGroups: {},
  groupPartitions: {},
  text2cypher: { enabled: false, maxRows: 25, maxHops: 3 },
  embeddingDimensions: 0,
  vectorSearch: { minSimilarity: 0.25, embedTimeoutMs: 1500, rrfK: 60, maxNeighbours: 4000 },
  groupSync: { enabled: true, intervalMinutes: 60 },
  everyoneGroups: ['discord'],
} as const satisfies KnowledgeSettings;

const positiveInt = z.number().int().positive();
const idList = z.array(z.string().min(1));

/** The `knowledge:` block of the settings file. */
export const knowledgeSettingsSchema = z
  .object({
    database: z.string().min(1),
    defaultMode: z.enum(['fulltext', 'graph', 'text2cypher', 'vector', 'hybrid']),
    maxTokens: z.number().int().min(64),
    timeoutMs: positiveInt,
    phaseTimeoutMs: positiveInt,
    candidateLimit: z.number().int().min(1).max(200),
    expansionLimit: z.number().int().min(0).max(200),
    allowedScopes: idList,
    principalGroups: z.record(z.string(), idList),
    groupPartitions: z.record(z.string(), idList),
    text2cypher: z
      .object({
        enabled: z.boolean(),
        maxRows: z.number().int().min(1).max(1000),
        maxHops: z.number().int().min(1).max(10),
      })
      .strict(),
    embeddingDimensions: z.number().int().min(0).max(8192),
    vectorSearch: z
      .object({
        minSimilarity: z.number().min(-1).max(1),
        embedTimeoutMs: positiveInt,
        rrfK: z.number().int().min(1).max(1000),
        maxNeighbours: z.number().int().min(10).max(100_000),
      })
      .strict(),
    groupSync: z
      .object({ enabled: z.boolean(), intervalMinutes: z.number().int().min(1).max(10_080) })
      .strict(),
    everyoneGroups: z.array(z.enum(['slack', 'discord', 'web'])),
  })
  .strict();

/** Connection of one Neo4j account: the reader for the bot, the writer for ingest. */
export interface Neo4jConnection {
  uri: string;
  user: string;
  password: string;
  database?: string;
}
