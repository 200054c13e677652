// Vector candidates under the ACL. The index answers "the k nearest chunks" before any filter, so a
// caller who may see 1 % of the knowledge base would get ~k/100 usable rows. The search therefore
// asks for k neighbours, keeps the visible ones in the same query, and while fewer than `limit` are
// visible asks again with a larger k: the share of visible rows seen so far, times 1.5 for margin,
// says how many neighbours should hold `limit` of them (eightfold when none was visible). It stops
// with `limit` visible, when the index has no more, or at `maxNeighbours`. Among the k nearest
// chunks the visible ones are exactly the caller's nearest (a visible chunk outside them scores
// lower than all of them), so stopping with `limit` visible loses nothing but the index's own
// approximation. A caller still short at `maxNeighbours` may see very little (fewer than about
// limit × total / maxNeighbours chunks): their chunks are scored directly, which is exact and cheap
// for so few. The k that sufficed (or "score directly") is remembered per ACL and model for ten
// minutes, so a repeat caller starts there instead of widening again.
import { LRUCache } from 'lru-cache';
import type { ScoredHit } from './graph-queries.ts';
import type { Query } from './read-runner.ts';
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
const MIN_FIRST_K = 24;
const MARGIN = 1.5;
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
  #syntax: VectorSyntax | undefined;

  constructor(maxNeighbours: number, syntax?: VectorSyntax) {
    this.#maxNeighbours = maxNeighbours;
    this.#syntax = syntax;
  }

  /** The caller's `limit` nearest visible chunks made by `p.model`, in one read transaction. */
  async search(query: Query, p: NeighbourParams): Promise<VectorOutcome> {
    if (this.#syntax === undefined) this.#syntax = vectorSyntaxOf(await kernelVersion(query));
    const syntax = this.#syntax;
    try {
      return await this.#search(query, syntax, p);
    } catch (err) {
      if (syntax !== 'search' || !needsProcedure(err)) throw err;
      this.#syntax = 'procedure';
      return this.#search(query, 'procedure', p);
    }
  }

  async #search(query: Query, syntax: VectorSyntax, p: NeighbourParams): Promise<VectorOutcome> {
    const key = `${p.model}\u0001${p.partitions.join('\u0000')}\u0001${p.groups.join('\u0000')}`;
    const plan = this.#plans.get(key);
    if (plan === 'exact') {
      const hits = await exactVisible(query, EXACT_SCAN_LIMIT, p);
      return { hits, modelHasVectors: true, via: 'exact' };
    }
    const max = Math.max(this.#maxNeighbours, p.limit);
    let k = Math.min(max, plan ?? Math.max(p.limit * FIRST_K_PER_RESULT, MIN_FIRST_K));
    for (;;) {
      const found = await nearestVisible(query, syntax, k, p);
      const exhausted = found.fetched < k;
      const seen = found.hits.length;
      if (seen >= p.limit || exhausted || found.matched === 0) {
        if (seen >= p.limit) this.#plans.set(key, k);
        return { hits: found.hits, modelHasVectors: found.matched > 0, via: { k } };
      }
      if (k >= max) break;
      const wanted = seen > 0 ? Math.ceil((p.limit / seen) * k * MARGIN) : k * WIDEN_BLIND;
      k = Math.min(max, Math.max(wanted, k * 2));
    }
    this.#plans.set(key, 'exact');
    const hits = await exactVisible(query, EXACT_SCAN_LIMIT, p);
    return { hits, modelHasVectors: true, via: 'exact' };
  }
}
