// Vector candidates under the ACL. The index answers "the k nearest chunks" before any filter it
// does not know (`vector-queries.ts`: on Neo4j 2026.06+ it knows the model and a chunk's first
// partition, before that only the model or nothing), so a caller who may see 1 % of what the index
// searches would get ~k/100 usable rows. Each search therefore asks for k neighbours, keeps the
// visible ones in the same query, and while fewer than `limit` are visible asks again with the k
// that the visible share seen so far calls for, with a margin (eightfold when none was visible).
// It stops with `limit` visible, when the index has no more, or at `maxNeighbours`. Among the k
// nearest chunks the visible ones are exactly the caller's nearest (a visible chunk outside them
// scores lower than all of them), so stopping with `limit` visible loses nothing but the index's
// own approximation. A caller still short at `maxNeighbours` may see very little (fewer than about
// limit × total / maxNeighbours chunks): their chunks are scored directly, which is exact and cheap
// for so few. The k each search calls for (or "score directly") is remembered per ACL and model
// for ten minutes, so a repeat caller asks once.
import { LRUCache } from 'lru-cache';
import type { ScoredHit } from './graph-queries.ts';
import type { Query } from './read-runner.ts';
import {
  exactVisible,
  kernelVersion,
  legsOf,
  type NeighbourParams,
  nearestVisible,
  type VectorLeg,
  type VectorSyntax,
  vectorSyntaxOf,
} from './vector-queries.ts';

/** First k: twice `limit`, room for some hidden chunks before asking again. */
const FIRST_K_PER_RESULT = 2;
const MIN_FIRST_K = 24;
const MARGIN = 1.25;
const WIDEN_BLIND = 8;
const PLAN_TTL_MS = 10 * 60_000;
/** Most chunks a direct scoring reads: beyond this a caller would have been found by the index. */
const EXACT_SCAN_LIMIT = 20_000;

interface LegOutcome {
  hits: ScoredHit[];
  modelHasVectors: boolean;
  via: { k: number } | 'exact';
}

export interface VectorOutcome {
  hits: ScoredHit[];
  /**
   * False when the searched part of the index holds no vector of this model (nothing the caller may
   * search was embedded by it).
   */
  modelHasVectors: boolean;
  /** How the hits were found: the largest k asked for, or direct scoring (of some chunks). */
  via: { k: number } | 'exact';
}

/** A server that cannot filter so in the index (an index made before the upgrade, an older server). */
function cannotFilter(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const { gqlStatus, code, cause } = e as {
      gqlStatus?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    if (gqlStatus === '22ND3' || gqlStatus === '42I73' || gqlStatus === '42I76') return true;
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
   * True when `err` says the server cannot filter as this search asked: the search steps down to
   * the next syntax (filtered → search → procedure) and may be retried.
   */
  switchedAfter(err: unknown): boolean {
    if (this.#syntax === undefined || this.#syntax === 'procedure' || !cannotFilter(err))
      return false;
    this.#syntax = this.#syntax === 'filtered' ? 'search' : 'procedure';
    return true;
  }

  async #search(query: Query, syntax: VectorSyntax, p: NeighbourParams): Promise<VectorOutcome> {
    const key = `${p.model}\u0001${p.partitions.join('\u0000')}\u0001${p.groups.join('\u0000')}`;
    const legs: LegOutcome[] = [];
    for (const leg of legsOf(syntax)) legs.push(await this.#leg(query, syntax, leg, key, p));
    // A shared chunk whose first partition is the caller's is found by both searches.
    const best = new Map<string, ScoredHit>();
    for (const h of legs.flatMap((l) => l.hits)) {
      const known = best.get(h.hit.chunk_id);
      if (!known || known.score < h.score) best.set(h.hit.chunk_id, h);
    }
    const asked = legs.flatMap((l) => (l.via === 'exact' ? [] : [l.via.k]));
    return {
      hits: [...best.values()].sort((a, b) => b.score - a.score).slice(0, p.limit),
      modelHasVectors: legs.some((l) => l.modelHasVectors),
      via: legs.some((l) => l.via === 'exact') ? 'exact' : { k: Math.max(0, ...asked) },
    };
  }

  /** One search, widened until `limit` are visible, or its chunks scored directly. */
  async #leg(
    query: Query,
    syntax: VectorSyntax,
    leg: VectorLeg,
    caller: string,
    p: NeighbourParams,
  ): Promise<LegOutcome> {
    const key = `${leg}\u0001${caller}`;
    const exact = async (): Promise<LegOutcome> => ({
      hits: await exactVisible(query, leg, EXACT_SCAN_LIMIT, p),
      modelHasVectors: true,
      via: 'exact',
    });
    const plan = this.#plans.get(key);
    if (plan === 'exact') return exact();
    const max = Math.max(this.#maxNeighbours, p.limit);
    const first = Math.max(p.limit * FIRST_K_PER_RESULT, MIN_FIRST_K);
    let k = Math.min(max, plan ?? first);
    for (;;) {
      const found = await nearestVisible(query, syntax, leg, k, p);
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
    return exact();
  }
}
