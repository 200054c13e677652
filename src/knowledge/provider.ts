// The knowledge context provider (ARCHITECTURE.md, "Knowledge (Neo4j)"): principal → groups →
// partitions; candidates with the ACL inside the query; optional graph expansion that drops hidden
// paths; freshness; a final ACL re-check read from the graph; then the token budget. Every phase is
// a read transaction with at most what is left of the request's deadline; running out is a
// `timeout` failure, never a quietly shorter answer.
import { LRUCache } from 'lru-cache';
import type { Driver } from 'neo4j-driver';
import type { Logger } from '../log/logger.ts';
import { accessOfGroups, aclParams, canSee, groupsOf, resolveAccess } from './acl.ts';
import { freshnessInstant } from './freshness.ts';
import {
  aclFactsOf,
  type ChunkHit,
  expandGraph,
  graphGroups,
  graphGroupsOfMany,
  type ScoredHit,
  searchCandidates,
} from './graph-queries.ts';
import { finalCheck, itemsFromHit } from './items.ts';
import { luceneQuery } from './lucene-query.ts';
import { identitiesOf } from './principal-id.ts';
import { classify, KnowledgeQueryError, type ReadOptions, ReadRunner } from './read-runner.ts';
import type { KnowledgeSettings } from './settings.ts';
import { type CypherGenerator, runText2Cypher } from './text2cypher.ts';
import { fitToBudget } from './token-budget.ts';
import type {
  DeniedReason,
  FailureKind,
  KnowledgeItem,
  KnowledgeRequest,
  KnowledgeResult,
} from './types.ts';

export interface KnowledgeProviderDeps {
  /** A driver logged in as the reader account. */
  driver: Driver;
  settings: KnowledgeSettings;
  log: Logger;
  /** Needed only for `text2cypher`, which also has to be enabled in settings. */
  generateCypher?: CypherGenerator;
  /** Wall clock for freshness (tests pin it). */
  clock?: () => number;
  /** Groups the chat platforms report for a principal (Slack user groups, Discord roles). */
  platformGroups?: (principalId: string) => readonly string[];
}

/**
 * Graph group memberships the audience check reuses: a channel's members are checked on every
 * knowledge answer there, so a 5,000-member channel would otherwise read 5,000 memberships per
 * question. A membership change reaches the audience check within this time (the chat platforms'
 * member lists are cached as long); retrieval for the asker always reads the graph.
 */
const AUDIENCE_GROUPS_TTL_MS = 60_000;

/** Expanded hits score a fraction of what led to them: context, not primary evidence. */
const DECAY = { claim: 0.7, neighbour: 0.5, entity: 0.4 } as const;

const NONE: readonly string[] = [];

/** What the audience check derives from one member's memberships (see `#memberOf`). */
interface MemberGroups {
  /** The graph groups it was derived from (the cached array itself). */
  graph: readonly string[];
  /** The platform groups it was derived from, joined. */
  platform: string;
  groups: ReadonlySet<string>;
  key: string;
  identities: string[];
}

interface Found {
  hit: ChunkHit;
  scores: Record<string, number>;
  passageOnly?: boolean;
}

function invalidRequest(r: KnowledgeRequest): string | undefined {
  if (typeof r.query !== 'string' || r.query.trim() === '') return 'query is empty';
  if (typeof r.principal_id !== 'string' || r.principal_id === '') return 'principal_id is empty';
  if (!Array.isArray(r.allowed_scopes)) return 'allowed_scopes must be a list';
  if (!Number.isInteger(r.max_tokens) || r.max_tokens < 1) return 'max_tokens must be ≥ 1';
  if (!Number.isFinite(r.timeout_ms) || r.timeout_ms < 1) return 'timeout_ms must be ≥ 1';
  return undefined;
}

export class KnowledgeProvider {
  readonly #runner: ReadRunner;
  readonly #deps: KnowledgeProviderDeps;
  readonly #memberGroups = new LRUCache<string, string[]>({
    max: 200_000,
    ttl: AUDIENCE_GROUPS_TTL_MS,
  });
  readonly #members = new LRUCache<string, MemberGroups>({
    max: 200_000,
    ttl: AUDIENCE_GROUPS_TTL_MS,
  });

  constructor(deps: KnowledgeProviderDeps) {
    this.#deps = deps;
    this.#runner = new ReadRunner(deps.driver, deps.settings.database);
  }

  async retrieve(req: KnowledgeRequest): Promise<KnowledgeResult> {
    const { settings, log } = this.#deps;
    const started = performance.now();
    const deadline = started + req.timeout_ms;
    const remaining = () => Math.floor(deadline - performance.now());
    const denied = new Map<DeniedReason, number>();
    const deny = (reason: DeniedReason, n: number) => {
      if (n > 0) denied.set(reason, (denied.get(reason) ?? 0) + n);
    };
    const result = (items: KnowledgeItem[], used: number, failure?: KnowledgeResult['failure']) => {
      const out: KnowledgeResult = {
        answerable: failure === undefined && items.length > 0,
        items: failure === undefined ? items : [],
        limits: {
          used_tokens: failure === undefined ? used : 0,
          max_tokens: req.max_tokens,
          elapsed_ms: Math.round(performance.now() - started),
          timeout_ms: req.timeout_ms,
        },
        denied: [...denied].map(([reason, count]) => ({ reason, count })),
      };
      if (failure) out.failure = failure;
      log.debug(
        { trace_id: req.trace_id, items: out.items.length, denied: out.denied, failure },
        'knowledge retrieve',
      );
      return out;
    };
    const fail = (kind: FailureKind, message: string) => result([], 0, { kind, message });

    const invalid = invalidRequest(req);
    if (invalid) return fail('bad_query', `invalid request: ${invalid}`);
    const mode = req.retrieval_mode ?? settings.defaultMode;
    const traceId = req.trace_id;
    // Each step gets the per-step ceiling or what is left of the request, and knows which it got.
    const phase = (name: string): ReadOptions => {
      const left = remaining();
      const capped = settings.phaseTimeoutMs < left;
      return {
        timeoutMs: capped ? settings.phaseTimeoutMs : left,
        limit: capped ? 'phase' : 'request',
        phase: name,
        traceId,
      };
    };
    try {
      const at = freshnessInstant(req.freshness_required_at, (this.#deps.clock ?? Date.now)());
      const fromGraph = await this.#runner.read(
        (q) => graphGroups(q, req.principal_id),
        phase('principal'),
      );
      const fromPlatform = this.#deps.platformGroups?.(req.principal_id) ?? [];
      const access = resolveAccess(
        req.principal_id,
        [...fromGraph, ...fromPlatform],
        req.allowed_scopes,
        settings,
      );
      deny('scope_not_allowed', access.scopeDenied);
      // The principal's own partition (per-person grants) is not access to a part of the knowledge
      // base: with no group partition the caller is told so, and only personal grants are searched.
      if (access.partitions.every((p) => access.identities.includes(p))) {
        deny('no_permitted_partition', 1);
        if (access.partitions.length === 0) return result([], 0);
      }
      const acl = aclParams(access);

      let found: Found[];
      if (mode === 'text2cypher') {
        const generate = this.#deps.generateCypher;
        if (!settings.text2cypher.enabled || !generate) {
          return fail('bad_query', 'text2cypher retrieval is not enabled');
        }
        const t2c = await runText2Cypher(
          { runner: this.#runner, generate, settings: settings.text2cypher, log },
          req.query,
          access,
          traceId,
          phase,
        );
        deny('text2cypher_not_permitted', t2c.notPermitted);
        deny('text2cypher_unverifiable', t2c.unverifiable);
        found = t2c.hits.map(({ hit, score }) => ({ hit, scores: { text2cypher: score } }));
      } else {
        const lucene = luceneQuery(req.query);
        const candidates = await this.#runner.read(
          (q) => searchCandidates(q, { lucene, limit: settings.candidateLimit, ...acl }),
          phase('candidates'),
        );
        found = candidates.map(({ hit, score }) => ({ hit, scores: { fulltext: score } }));
        if (mode === 'graph' && settings.expansionLimit > 0 && candidates.length > 0) {
          found.push(...(await this.#expand(candidates, acl, phase('expansion'), deny)));
        }
      }

      const items = found.flatMap((f) =>
        itemsFromHit(f.hit, f.scores, at, f.passageOnly ? { passageOnly: true } : {}),
      );
      const chunkIds = [...new Set(items.map((i) => i.chunk_id))];
      const facts =
        chunkIds.length === 0
          ? []
          : await this.#runner.read((q) => aclFactsOf(q, chunkIds), phase('final-check'));
      const checked = finalCheck(items, facts, access);
      deny('final_check_failed', checked.failed);
      const budget = fitToBudget(checked.passed, req.max_tokens);
      for (const d of budget.denied) deny(d.reason, d.count);
      if (remaining() < 0)
        throw new KnowledgeQueryError(
          'timeout',
          `the request ran past its deadline of ${req.timeout_ms} ms`,
        );
      return result(budget.items, budget.usedTokens);
    } catch (err) {
      if (err instanceof RangeError) return fail('bad_query', err.message);
      const failure = classify(err, 'retrieve');
      log.warn({ trace_id: traceId, err, kind: failure.kind }, 'knowledge retrieve failed');
      return fail(failure.kind, failure.message);
    }
  }

  /**
   * The chunks among `chunkIds` that at least one of `principalIds` may not read (a chunk no longer
   * in the graph counts as unreadable): the audience check of an answer posted in a channel. Uses
   * the same groups, partitions, `allowedScopes` and ACL as retrieval. Principals with the same
   * groups share one check, so a 5,000-member channel costs a few distinct checks.
   */
  async unreadableBy(
    principalIds: readonly string[],
    chunkIds: readonly string[],
    traceId?: string,
  ): Promise<Set<string>> {
    const { settings } = this.#deps;
    const unique = [...new Set(chunkIds)];
    if (unique.length === 0 || principalIds.length === 0) return new Set();
    const cache = this.#memberGroups;
    const unknown = principalIds.filter((id) => !cache.has(id));
    const { groupsOf: groupsOf_, facts } = await this.#runner.read(
      async (q) => ({
        groupsOf: unknown.length > 0 ? await graphGroupsOfMany(q, unknown) : new Map(),
        facts: await aclFactsOf(q, unique),
      }),
      { timeoutMs: settings.phaseTimeoutMs, phase: 'audience', ...(traceId ? { traceId } : {}) },
    );
    for (const id of unknown) cache.set(id, groupsOf_.get(id) ?? []);
    // A principal's own ids matter only where these chunks' documents name them (a per-person
    // grant, deny or partition); everyone else with the same groups shares one check.
    const named = new Set<string>();
    for (const f of facts) {
      for (const list of [f.allowed_groups, f.denied, f.chunk_partition, f.document_partition]) {
        if (Array.isArray(list)) for (const x of list) if (typeof x === 'string') named.add(x);
      }
    }
    const byGroups = new Map<string, { principalId: string; groups: ReadonlySet<string> }>();
    for (const id of principalIds) {
      const m = this.#memberOf(id, groupsOf_.get(id) ?? cache.get(id) ?? NONE);
      const personal = m.identities.some((n) => named.has(n));
      const key = personal ? `${id}\u0001${m.key}` : m.key;
      byGroups.set(key, { principalId: personal ? id : '', groups: m.groups });
    }
    const factOf = new Map(facts.map((f) => [f.chunk_id, f]));
    const hidden = new Set<string>();
    for (const { principalId, groups } of byGroups.values()) {
      const access = accessOfGroups(principalId, groups, settings.allowedScopes, settings);
      for (const id of unique) {
        const f = factOf.get(id);
        const readable =
          f !== undefined &&
          canSee(access, {
            chunkPartition: f.chunk_partition,
            documentPartition: f.document_partition,
            allowedGroups: f.allowed_groups,
            denied: f.denied,
          });
        if (!readable) hidden.add(id);
      }
    }
    return hidden;
  }

  /**
   * A member's groups and their key, derived once per change of its graph or platform groups: the
   * audience check of a 5,000-member channel runs this for every member on every question.
   */
  #memberOf(id: string, graph: readonly string[]): MemberGroups {
    const platformList = this.#deps.platformGroups?.(id) ?? NONE;
    const platform = platformList.length === 0 ? '' : platformList.join('\u0000');
    const known = this.#members.get(id);
    if (known && known.graph === graph && known.platform === platform) return known;
    const groups = groupsOf(id, [...graph, ...platformList], this.#deps.settings);
    const m: MemberGroups = {
      graph,
      platform,
      groups,
      key: [...groups].sort().join('\u0000'),
      identities: identitiesOf(id),
    };
    this.#members.set(id, m);
    return m;
  }

  async #expand(
    candidates: ScoredHit[],
    acl: { partitions: string[]; groups: string[] },
    opts: ReadOptions,
    deny: (reason: DeniedReason, n: number) => void,
  ): Promise<Found[]> {
    const scoreOf = new Map(candidates.map((c) => [`Chunk:${c.hit.chunk_id}`, c.score]));
    const best = Math.max(...candidates.map((c) => c.score));
    for (const c of candidates) {
      for (const cl of c.hit.claims) {
        const key = `Claim:${cl.claim_id}`;
        scoreOf.set(key, Math.max(scoreOf.get(key) ?? 0, c.score));
      }
    }
    const chunkIds = candidates.map((c) => c.hit.chunk_id);
    const ex = await this.#runner.read(
      (q) =>
        expandGraph(q, {
          claimIds: [...new Set(candidates.flatMap((c) => c.hit.claims.map((x) => x.claim_id)))],
          chunkIds,
          documentUris: [...new Set(candidates.map((c) => c.hit.doc.source_uri))],
          seen: chunkIds,
          limit: this.#deps.settings.expansionLimit,
          ...acl,
        }),
      opts,
    );
    deny('expansion_not_permitted', ex.hidden);
    const graph = (hit: ChunkHit, decay: number, fallback: number) => ({
      graph: decay * (scoreOf.get(hit.from ?? '') ?? fallback),
    });
    return [
      ...ex.claims.map((hit) => ({ hit, scores: graph(hit, DECAY.claim, 0) })),
      ...ex.neighbours.map((hit) => ({
        hit,
        scores: graph(hit, DECAY.neighbour, 0),
        passageOnly: true,
      })),
      ...ex.entities.map((hit) => ({ hit, scores: graph(hit, DECAY.entity, best) })),
    ];
  }
}
