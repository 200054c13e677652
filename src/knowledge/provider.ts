// The knowledge context provider (ARCHITECTURE.md, "Knowledge (Neo4j)"): principal → groups →
// partitions; candidates with the ACL inside the query (fulltext, vector or both fused); optional
// graph expansion that drops hidden paths; freshness; a final ACL re-check read from the graph;
// then the token budget. Every phase is a read transaction with at most what is left of the
// request's deadline; running out is a `timeout` failure, never a quietly shorter answer.
import type { Driver } from 'neo4j-driver';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import { EmbeddingFallbackLog } from '../llm/embeddings/embedding-fallback.ts';
import { RerankFallbackLog } from '../llm/rerank/rerank-fallback.ts';
import type { Reranker } from '../llm/rerank/reranker.ts';
import type { Logger } from '../log/logger.ts';
import { type Access, aclParams, resolveAccess } from './acl.ts';
import { AudienceCheck } from './audience-check.ts';
import { ChunkShares } from './chunk-share.ts';
import { freshnessInstant } from './freshness.ts';
import { FulltextSearch, readCandidates } from './fulltext-search.ts';
import {
  aclFactsOf,
  type ChunkHit,
  expandGraph,
  graphGroups,
  type ScoredHit,
} from './graph-queries.ts';
import { semanticCandidates } from './hybrid-search.ts';
import { finalCheck, itemsFromHit } from './items.ts';
import { luceneQuery } from './lucene-query.ts';
import { embedQuery, type QueryVector } from './query-vector.ts';
import { classify, KnowledgeQueryError, type ReadOptions, ReadRunner } from './read-runner.ts';
import { type KnowledgeRerank, rerankItems } from './rerank-items.ts';
import { type Deny, type Phase, RetrieveRun } from './retrieve-run.ts';
import type { KnowledgeSettings } from './settings.ts';
import { type CypherGenerator, runText2Cypher } from './text2cypher.ts';
import { fitToBudget } from './token-budget.ts';
import type { KnowledgeRequest, KnowledgeResult, RetrievalMode } from './types.ts';
import { VectorPlan } from './vector-plan.ts';
import type { VectorSyntax } from './vector-queries.ts';
import { VectorSearch } from './vector-search.ts';

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
  /** Embeds questions for `vector` and `hybrid`; without it those modes search by words. */
  embedder?: Embedder;
  /** How to ask the vector index; default: what the server supports (tests pin both). */
  vectorSyntax?: VectorSyntax;
  /** Where falling back to words is reported (default: `log`, at most once a minute per reason). */
  fallbackLog?: EmbeddingFallbackLog;
  /** How fulltext candidates are asked for (default: by the reader's share of the chunks). */
  fulltext?: FulltextSearch;
  /** Which vector index a reader asks (default: by the reader's share of the chunks). */
  vectorPlan?: VectorPlan;
  /** Scores the checked items with a cross-encoder, whose score then orders them (not text2cypher's). */
  reranker?: Reranker;
}

/** Expanded hits score a fraction of what led to them: context, not primary evidence. */
const DECAY = { claim: 0.7, neighbour: 0.5, entity: 0.4 } as const;

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
  readonly #audience: AudienceCheck;
  readonly #vectors: VectorSearch;
  readonly #fulltext: FulltextSearch;
  readonly #fallback: EmbeddingFallbackLog;
  readonly #rerank: KnowledgeRerank | undefined;

  constructor(deps: KnowledgeProviderDeps) {
    this.#deps = deps;
    this.#runner = new ReadRunner(deps.driver, deps.settings.database);
    this.#audience = new AudienceCheck(this.#runner, deps.settings, deps.platformGroups);
    // One count of a reader's share of the chunks picks both legs' plans.
    const shares = new ChunkShares();
    this.#vectors = new VectorSearch(
      deps.settings.vectorSearch.maxNeighbours,
      deps.vectorSyntax,
      deps.vectorPlan ?? new VectorPlan({ shares }),
    );
    this.#fulltext = deps.fulltext ?? new FulltextSearch({ shares });
    this.#fallback = deps.fallbackLog ?? new EmbeddingFallbackLog(deps.log);
    this.#rerank = deps.reranker
      ? { reranker: deps.reranker, fallback: new RerankFallbackLog(deps.log) }
      : undefined;
  }

  async retrieve(req: KnowledgeRequest): Promise<KnowledgeResult> {
    const run = new RetrieveRun(req, this.#deps.settings, this.#deps.log);
    const invalid = invalidRequest(req);
    if (invalid) return run.fail('bad_query', `invalid request: ${invalid}`);
    const done = new AbortController();
    const queryVector = this.#queryVector(req, run, done.signal);
    try {
      return await this.#retrieveChecked(req, run, queryVector);
    } catch (err) {
      if (err instanceof RangeError) return run.fail('bad_query', err.message);
      const failure = classify(err, 'retrieve');
      this.#deps.log.warn(
        { trace_id: req.trace_id, err, kind: failure.kind },
        'knowledge retrieve failed',
      );
      return run.fail(failure.kind, failure.message);
    } finally {
      done.abort();
    }
  }

  /**
   * The question's vector, started now so it is embedded while the principal's groups are read
   * (never rejects); undefined when the mode needs none. Without an embedder, vector and hybrid
   * search by words.
   */
  #queryVector(
    req: KnowledgeRequest,
    run: RetrieveRun,
    signal: AbortSignal,
  ): Promise<QueryVector> | undefined {
    const { embedder, settings } = this.#deps;
    const semantic = run.ran === 'vector' || run.ran === 'hybrid';
    if (semantic && !embedder) run.ran = 'fulltext';
    if (!embedder || !semantic) return undefined;
    return embedQuery(embedder, req.query, {
      timeoutMs: Math.min(settings.vectorSearch.embedTimeoutMs, req.timeout_ms),
      dimensions: settings.embeddingDimensions,
      signal,
    });
  }

  /** Access, candidates, the final ACL re-check and the budget, within the request's deadline. */
  async #retrieveChecked(
    req: KnowledgeRequest,
    run: RetrieveRun,
    queryVector: Promise<QueryVector> | undefined,
  ): Promise<KnowledgeResult> {
    const { phase, deny } = run;
    const at = freshnessInstant(req.freshness_required_at, (this.#deps.clock ?? Date.now)());
    const access = await this.#access(req, phase, deny);
    if (access.partitions.length === 0) return run.result([], 0);
    const candidates = await this.#candidates(run.ran, req, access, phase, deny, queryVector);
    run.ran = candidates.ran;
    const items = candidates.found.flatMap((f) =>
      itemsFromHit(f.hit, f.scores, at, f.passageOnly ? { passageOnly: true } : {}),
    );
    const chunkIds = [...new Set(items.map((i) => i.chunk_id))];
    const facts =
      chunkIds.length === 0
        ? []
        : await this.#runner.read((q) => aclFactsOf(q, chunkIds), phase('final-check'));
    const checked = finalCheck(items, facts, access);
    deny('final_check_failed', checked.failed);
    const ordered =
      this.#rerank && run.ran !== 'text2cypher'
        ? await rerankItems(checked.passed, req.query, this.#rerank, run.remaining())
        : checked.passed;
    const budget = fitToBudget(ordered, req.max_tokens);
    for (const d of budget.denied) deny(d.reason, d.count);
    if (run.remaining() < 0)
      throw new KnowledgeQueryError(
        'timeout',
        `the request ran past its deadline of ${req.timeout_ms} ms`,
      );
    return run.result(budget.items, budget.usedTokens);
  }

  /** The caller's groups and partitions (graph, platform and config), with what they exclude. */
  async #access(req: KnowledgeRequest, phase: Phase, deny: Deny): Promise<Access> {
    const fromGraph = await this.#runner.read(
      (q) => graphGroups(q, req.principal_id),
      phase('principal'),
    );
    const fromPlatform = this.#deps.platformGroups?.(req.principal_id) ?? [];
    const access = resolveAccess(
      req.principal_id,
      [...fromGraph, ...fromPlatform],
      req.allowed_scopes,
      this.#deps.settings,
    );
    deny('scope_not_allowed', access.scopeDenied);
    // The principal's own partition (per-person grants) is not access to a part of the knowledge
    // base: with no group partition the caller is told so, and only personal grants are searched.
    if (access.partitions.every((p) => access.identities.includes(p)))
      deny('no_permitted_partition', 1);
    return access;
  }

  /** Candidates of one mode, each with the ACL inside its queries, and the mode that ran. */
  async #candidates(
    mode: RetrievalMode,
    req: KnowledgeRequest,
    access: Access,
    phase: Phase,
    deny: Deny,
    queryVector: Promise<QueryVector> | undefined,
  ): Promise<{ found: Found[]; ran: RetrievalMode }> {
    const { settings, log, embedder } = this.#deps;
    const acl = aclParams(access);
    if (mode === 'text2cypher') {
      const generate = this.#deps.generateCypher;
      if (!settings.text2cypher.enabled || !generate)
        throw new KnowledgeQueryError('bad_query', 'text2cypher retrieval is not enabled');
      const t2c = await runText2Cypher(
        { runner: this.#runner, generate, settings: settings.text2cypher, log },
        req.query,
        access,
        req.trace_id,
        phase,
      );
      deny('text2cypher_not_permitted', t2c.notPermitted);
      deny('text2cypher_unverifiable', t2c.unverifiable);
      const found = t2c.hits.map(({ hit, score }) => ({ hit, scores: { text2cypher: score } }));
      return { found, ran: mode };
    }
    if ((mode === 'vector' || mode === 'hybrid') && embedder && queryVector !== undefined) {
      return semanticCandidates(
        {
          runner: this.#runner,
          settings,
          vectors: this.#vectors,
          fulltext: this.#fulltext,
          fallback: this.#fallback,
          log,
        },
        {
          mode,
          question: req.query,
          acl,
          queryVector,
          phase,
          traceId: req.trace_id,
        },
      );
    }
    const lucene = luceneQuery(req.query);
    const candidates = await readCandidates(
      this.#runner,
      this.#fulltext,
      { lucene, limit: settings.candidateLimit, ...acl },
      phase('candidates'),
    );
    const found: Found[] = candidates.map(({ hit, score }) => ({
      hit,
      scores: { fulltext: score },
    }));
    if (mode === 'graph' && settings.expansionLimit > 0 && candidates.length > 0) {
      found.push(...(await this.#expand(candidates, acl, phase('expansion'), deny)));
    }
    return { found, ran: mode === 'graph' ? 'graph' : 'fulltext' };
  }

  /**
   * The chunks among `chunkIds` that at least one of `principalIds` may not read (a chunk no longer
   * in the graph counts as unreadable): the audience check of an answer posted in a channel.
   */
  unreadableBy(
    principalIds: readonly string[],
    chunkIds: readonly string[],
    traceId?: string,
  ): Promise<Set<string>> {
    return this.#audience.unreadableBy(principalIds, chunkIds, traceId);
  }

  async #expand(
    candidates: ScoredHit[],
    acl: { partitions: string[]; groups: string[] },
    opts: ReadOptions,
    deny: Deny,
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
