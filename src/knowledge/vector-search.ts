// Vector candidates under the ACL. The index answers "the k nearest chunks" before any filter, so a
// caller who may see 1 % of the knowledge base would get ~k/100 usable rows. The search therefore
// asks for k neighbours, keeps the visible ones in the same query, and while fewer than `limit` are
// visible asks again with the k that the visible share seen so far says should hold `limit` of
// them, with a margin (eightfold when none was visible). It stops with `limit` visible, when the
// index has no more, or at `maxNeighbours`. Among the k nearest chunks the visible ones are exactly
// the caller's nearest (a visible chunk outside them scores lower than all of them), so stopping
// with `limit` visible loses nothing but the index's own approximation. A caller still short at
// `maxNeighbours` may see very little (fewer than about limit × total / maxNeighbours chunks):
// their chunks are scored directly, which is exact and cheap for so few. The k the visible share
// calls for (or "score directly") is remembered per ACL and model for ten minutes, so a repeat
// caller asks once. A reader who may see little asks the ACL index with their partitions inside
// the search (`vector-plan.ts`), so nearly every neighbour is theirs and k stays near `limit`.
import { LRUCache } from 'lru-cache';
import type { ScoredHit } from './graph-queries.ts';
import type { Query } from './read-runner.ts';
import { VectorPlan } from './vector-plan.ts';
import {
  exactVisible,
  kernelVersion,
  type NeighbourParams,
  nearestVisible,
  type VectorSyntax,
  vectorSyntaxOf,
} from './vector-queries.ts';

/** First k: twice `limit`, room for some hidden chunks before asking again. */
const FIRST_K_PER_RESULT = 2;
/** First k of the narrow plan: its neighbours are the caller's but for a document ACL's exceptions. */
const NARROW_FIRST_K_PER_RESULT = 1.25;
const MIN_FIRST_K = 24;
const MARGIN = 1.25;
const WIDEN_BLIND = 8;
const PLAN_TTL_MS = 10 * 60_000;
/** Most chunks a direct scoring reads: beyond this a caller would have been found by the index. */
const EXACT_SCAN_LIMIT = 20_000;

export interface VectorOutcome {
  hits: ScoredHit[];
  /** False when the index holds no vector of this model at all (nothing was ever embedded by it). */
  modelHasVectors: boolean;
  /** How the hits were found: the largest k asked for, or direct scoring. */
  via: { k: number } | 'exact';
}

/** A server that cannot filter in the index (an index made before the upgrade, or an older server). */
function needsProcedure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const { gqlStatus, code, cause } = e as {
      gqlStatus?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    if (gqlStatus === '22ND3' || gqlStatus === '42I73') return true;
    if (typeof code === 'string' && /Statement\.SyntaxError/.test(code)) return true;
    e = cause;
  }
  return false;
}

export class VectorSearch {
  readonly #maxNeighbours: number;
  readonly #plans = new LRUCache<string, number | 'exact'>({ max: 10_000, ttl: PLAN_TTL_MS });
  readonly #plan: VectorPlan;
  #syntax: VectorSyntax | undefined;

  /** `plan`: which index a reader asks (default: by the reader's share of the chunks). */
  constructor(maxNeighbours: number, syntax?: VectorSyntax, plan?: VectorPlan) {
    this.#maxNeighbours = maxNeighbours;
    this.#syntax = syntax;
    this.#plan = plan ?? new VectorPlan();
  }

  /**
   * The caller's `limit` nearest visible chunks made by `p.model`, in one read transaction. When it
   * fails because the server cannot filter in this index, `switchedAfter` says so: ask again in a
   * new transaction (a failed query ends its own).
   */
  async search(query: Query, p: NeighbourParams): Promise<VectorOutcome> {
    if (this.#syntax === undefined) this.#syntax = vectorSyntaxOf(await kernelVersion(query));
    return this.#search(query, this.#syntax, p);
  }

  /**
   * True when `err` made this search switch to the broad plan (the ACL index cannot answer) or to
   * the procedure, so the same search may be retried.
   */
  switchedAfter(err: unknown): boolean {
    if (this.#syntax === 'search' && this.#plan.switchedAfter(err)) return true;
    if (this.#syntax !== 'search' || !needsProcedure(err)) return false;
    this.#syntax = 'procedure';
    return true;
  }

  async #search(query: Query, syntax: VectorSyntax, p: NeighbourParams): Promise<VectorOutcome> {
    const keys = syntax === 'search' ? await this.#plan.keysFor(query, p.partitions) : undefined;
    if (keys) {
      // None of the caller's chunks has a vector of this model: the broad plan tells whether any has.
      const narrow = await this.#walk(query, syntax, { ...p, keys });
      if (narrow.modelHasVectors) return narrow;
    }
    return this.#walk(query, syntax, p);
  }

  /** Widens k until `limit` visible chunks are found, or scores the caller's chunks directly. */
  async #walk(query: Query, syntax: VectorSyntax, p: NeighbourParams): Promise<VectorOutcome> {
    const keys = p.keys;
    const key = `${keys ? 'n' : 'b'}\u0001${p.model}\u0001${p.partitions.join('\u0000')}\u0001${p.groups.join('\u0000')}`;
    const plan = this.#plans.get(key);
    if (plan === 'exact') {
      const hits = await exactVisible(query, EXACT_SCAN_LIMIT, p);
      return { hits, modelHasVectors: true, via: 'exact' };
    }
    const max = Math.max(this.#maxNeighbours, p.limit);
    const first = keys
      ? Math.ceil(p.limit * NARROW_FIRST_K_PER_RESULT)
      : Math.max(p.limit * FIRST_K_PER_RESULT, MIN_FIRST_K);
    let k = Math.min(max, plan ?? first);
    for (;;) {
      const found = await nearestVisible(query, syntax, k, p);
      const exhausted = found.fetched < k;
      // The k that should hold `limit` visible chunks, by the share visible among these k.
      const fits = Math.ceil((p.limit / Math.max(found.visible, 1)) * k * MARGIN);
      if (found.hits.length >= p.limit || exhausted || found.matched === 0) {
        if (found.hits.length >= p.limit)
          this.#plans.set(key, Math.min(max, Math.max(first, fits)));
        return { hits: found.hits, modelHasVectors: found.matched > 0, via: { k } };
      }
      if (k >= max) break;
      k = Math.min(max, found.visible > 0 ? Math.max(fits, k * 2) : k * WIDEN_BLIND);
    }
    this.#plans.set(key, 'exact');
    const hits = await exactVisible(query, EXACT_SCAN_LIMIT, p);
    return { hits, modelHasVectors: true, via: 'exact' };
  }
}
