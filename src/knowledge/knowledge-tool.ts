// The agent's `knowledge_search(query)`. Who is asking (principal) and the trace id come from the
// turn scope (AsyncLocalStorage), never from the model's arguments; which partitions a chat
// surface may expose comes from config. The result is cited data, or one plain sentence saying
// that no usable evidence was found and why.
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import type { Logger } from '../log/logger.ts';
import { type AnswerSource, type SourcesArtifact, webLink } from '../model/answer-extras.ts';
import { currentScope, NO_SCOPE_MESSAGE, type TurnScope } from '../scope/scope.ts';
import { renderEvidence } from './render.ts';
import type { KnowledgeSettings } from './settings.ts';
import type { KnowledgeRequest, KnowledgeResult } from './types.ts';

export interface KnowledgeToolDeps {
  provider: { retrieve(req: KnowledgeRequest): Promise<KnowledgeResult> };
  settings: Pick<KnowledgeSettings, 'maxTokens' | 'timeoutMs' | 'defaultMode' | 'allowedScopes'>;
  log: Logger;
  /**
   * The principal id the graph and `principalGroups` know the caller by. Default
   * `<platform>:<workspace>:<user id>` (`slack:T123:U123`, `discord:<guild>:<user>`).
   */
  principalOf?: (scope: TurnScope) => string;
}

/**
 * The principal id of a platform user: the one place the id's shape is decided. The workspace
 * (Slack team, Discord guild) is part of it, so ids of two workspaces or platforms never meet; a
 * Discord DM (project `dm:<user>`) has no guild and is `discord:dm:<user>` (see principal-id.ts),
 * and so is a Discord user install (project `user:<user>`): the server it was used in did not
 * install the bot, so the person has none of that server's groups there, only their own.
 */
export function principalIdOf(
  ref: Pick<TurnScope['ref'], 'platform' | 'projectId'>,
  userId: string,
): string {
  const workspace =
    ref.projectId.startsWith('dm:') || ref.projectId.startsWith('user:') ? 'dm' : ref.projectId;
  return `${ref.platform}:${workspace}:${userId}`;
}

export const defaultPrincipalOf = (scope: TurnScope): string =>
  principalIdOf(scope.ref, scope.principal);

/** What the model reads for a result. */
export function renderKnowledgeResult(query: string, r: KnowledgeResult): string {
  if (r.answerable) return renderEvidence(r.items);
  const base = `No usable evidence was found in the knowledge base for "${query}"`;
  const reasons = new Set(r.denied.map((d) => d.reason));
  switch (r.failure?.kind) {
    case 'timeout':
      return `${base}: the search did not finish within its ${r.limits.timeout_ms} ms deadline (${r.failure.message}). Answer without it and say the knowledge base timed out.`;
    case 'phase_timeout':
      return `${base}: one step of the search ran past its time limit (${r.failure.message}). Answer without it and say the knowledge base was too slow.`;
    case 'unavailable':
      return `${base}: the knowledge base could not be reached. Answer without it and say so.`;
    case 'unauthorized':
      return `${base}: the knowledge base refused the bot's credentials (a configuration problem for the admins). Answer without it and say so.`;
    case 'bad_query':
      return `${base}: the search request was not valid (${r.failure.message}). Answer without it, or search again with plainer words.`;
    case 'error':
      return `${base}: the search failed (${r.failure.message}). Answer without it and say so.`;
    default:
      if (reasons.has('no_permitted_partition')) {
        return `${base}: the person asking has no access to any part of the knowledge base from here.`;
      }
      if (reasons.has('token_budget')) {
        return `${base}: the matching passages did not fit the context budget.`;
      }
      return `${base} among the documents the person asking is permitted to see. Do not answer from memory as if it were documented.`;
  }
}

/** The documents a result showed the model, one per `source_uri`, for the answer's sources line. */
export function knowledgeSources(r: KnowledgeResult): SourcesArtifact {
  const byUri = new Map<string, AnswerSource>();
  for (const item of r.answerable ? r.items : []) {
    const known = byUri.get(item.source_uri);
    // A document seen both current and stale in one result is shown as current.
    if (known && known.freshness !== 'stale') continue;
    const link = webLink(item.source_uri);
    byUri.set(item.source_uri, {
      kind: 'knowledge',
      title: item.source_uri,
      uri: item.source_uri,
      ...(link ? { link } : {}),
      freshness: item.freshness,
    });
  }
  return { sources: [...byUri.values()] };
}

/** `knowledge_search(query)`: the scope's principal, config's scopes, the provider's contract. */
export function knowledgeSearchTool(d: KnowledgeToolDeps) {
  return tool(
    async ({ query }) => {
      const scope = currentScope();
      if (!scope) return [NO_SCOPE_MESSAGE, { sources: [] }] satisfies [string, SourcesArtifact];
      const result = await d.provider.retrieve({
        query,
        principal_id: (d.principalOf ?? defaultPrincipalOf)(scope),
        allowed_scopes: d.settings.allowedScopes,
        retrieval_mode: d.settings.defaultMode,
        max_tokens: d.settings.maxTokens,
        timeout_ms: d.settings.timeoutMs,
        freshness_required_at: null,
        trace_id: scope.traceId,
      });
      d.log.debug(
        {
          trace_id: scope.traceId,
          items: result.items.length,
          used_tokens: result.limits.used_tokens,
          elapsed_ms: result.limits.elapsed_ms,
          failure: result.failure?.kind,
        },
        'knowledge_search',
      );
      // Before the model sees the evidence: the turn may have to answer privately because of it.
      if (result.answerable && scope.onEvidence) {
        await scope.onEvidence(
          result.items.map((i) => ({ chunk_id: i.chunk_id, source_uri: i.source_uri })),
        );
      }
      return [renderKnowledgeResult(query, result), knowledgeSources(result)] satisfies [
        string,
        SourcesArtifact,
      ];
    },
    {
      name: 'knowledge_search',
      responseFormat: 'content_and_artifact',
      description:
        "Search the team's knowledge base (design decisions, ADRs, runbooks, policies) that the person asking may see. Returns cited passages with their source, version and whether they are outdated.",
      schema: z.object({
        query: z
          .string()
          .min(1)
          .describe('What to look for, in words likely to appear in the documents'),
      }),
    },
  );
}
