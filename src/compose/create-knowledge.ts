// The knowledge feature, built from the config when NEO4J_URI is set: a reader driver, the
// provider (with the embedder for vector and hybrid search, when one is configured), the
// knowledge_search tool and, only when Text2Cypher is switched on, a generator that asks the text
// model for one read query (which the guard then checks).
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import neo4j, { type Driver } from 'neo4j-driver';
import type { Config } from '../config/schema.ts';
import type { EvidenceAccess } from '../core/audience.ts';
import { knowledgeSearchTool, principalIdOf } from '../knowledge/knowledge-tool.ts';
import { PlatformGroups } from '../knowledge/platform-groups.ts';
import { LEGACY_PRINCIPAL_WARNING, legacyKeys } from '../knowledge/principal-id.ts';
import { KnowledgeProvider } from '../knowledge/provider.ts';
import type { CypherGenerator } from '../knowledge/text2cypher.ts';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import type { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Reranker } from '../llm/rerank/reranker.ts';
import type { Logger } from '../log/logger.ts';

function cypherGenerator(llm: ModelEndpoint): CypherGenerator {
  return async (question, schema, signal) => {
    const model = await llm.variant(400);
    const reply = await model.invoke(
      [
        new SystemMessage(
          `${schema}\nAnswer with the Cypher query only, no explanation, no code fence.`,
        ),
        new HumanMessage(question),
      ],
      { signal },
    );
    const text = typeof reply.content === 'string' ? reply.content : '';
    return text.replace(/^```(?:cypher)?\s*|\s*```$/g, '').trim();
  };
}

export function createKnowledge(
  config: Config,
  llm: ModelEndpoint,
  log: Logger,
  /** Search by meaning as well as by words; undefined: no embeddings endpoint, words only. */
  embedder?: Embedder,
  /** Reorders the permitted items by a cross-encoder's score; undefined: none. */
  reranker?: Reranker,
) {
  const conn = config.neo4j;
  if (!conn) return undefined;
  const driver: Driver = neo4j.driver(conn.uri, neo4j.auth.basic(conn.user, conn.password), {
    // Fail fast when the graph is unreachable; the provider reports it as unavailable.
    connectionAcquisitionTimeout: config.knowledge.timeoutMs,
    userAgent: 'threadmind',
  });
  const settings = { ...config.knowledge, ...(conn.database ? { database: conn.database } : {}) };
  const legacy = legacyKeys(settings.principalGroups);
  if (legacy.length > 0)
    log.warn({ keys: legacy }, `knowledge.principalGroups: ${LEGACY_PRINCIPAL_WARNING}`);
  const groups = new PlatformGroups();
  const provider = new KnowledgeProvider({
    driver,
    settings,
    log: log.child({ component: 'knowledge' }),
    platformGroups: (principalId) => groups.groupsOf(principalId),
    ...(settings.text2cypher.enabled ? { generateCypher: cypherGenerator(llm) } : {}),
    ...(embedder ? { embedder } : {}),
    ...(reranker ? { reranker } : {}),
  });
  const evidenceAccess: EvidenceAccess = {
    unreadable: (ref, userIds, evidence) =>
      provider.unreadableBy(
        userIds.map((u) => principalIdOf(ref, u)),
        evidence.map((e) => e.chunk_id),
      ),
  };
  return {
    driver,
    provider,
    embedder,
    evidenceAccess,
    groups,
    tool: knowledgeSearchTool({ provider, settings, log }),
    check: async () => {
      await driver.verifyConnectivity();
    },
    close: () => driver.close(),
  };
}
