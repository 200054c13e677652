// Fulltext candidates under the ACL, by one of two plans. The index returns every chunk that
// matches a word of the question, best first, and the ACL filter (`candidateCypher`) keeps the
// visible ones until `limit`: cheap when most chunks are visible, but a reader who may see 0.1 %
// of the knowledge base makes the query read nearly every match to find a few. So a reader whose
// partitions hold a small share of the chunks asks the ACL index instead, with their partitions
// in the Lucene query (`narrowLucene`): the index itself skips everyone else's chunks. Both plans
// keep the same ACL filter after the index, so they return the same chunks; only the work differs.
// The share is counted once per set of partitions and remembered (`chunk-share.ts`, a cache the
// vector plan shares). A graph whose writer has not built the
// ACL index yet (or is still building it) is asked the first way, and the index tried again a
// minute later.

import { ChunkShares } from './chunk-share.ts';
import {
  type CandidateParams,
  FULLTEXT_ACL_INDEX,
  type ScoredHit,
  searchCandidates,
} from './graph-queries.ts';
import { narrowLucene } from './lucene-query.ts';
import type { Query, ReadOptions, ReadRunner } from './read-runner.ts';

/** Readers whose partitions hold at most this share of the chunks have their partitions in the query. */
export const NARROW_SHARE = 0.2;
const RETRY_ACL_INDEX_MS = 60_000;

export type FulltextPlan = 'narrow' | 'broad';

/** The ACL index is missing or not online yet: the server's words for it. */
function aclIndexUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const { message, cause } = e as { message?: unknown; cause?: unknown };
    if (
      typeof message === 'string' &&
      message.includes(FULLTEXT_ACL_INDEX) &&
      /no such fulltext schema index|not online|populating|failed/i.test(message)
    )
      return true;
    e = cause;
  }
  return false;
}

export class FulltextSearch {
  readonly #now: () => number;
  readonly #shares: ChunkShares;
  readonly #narrowShare: number;
  #aclIndexAfter = 0;

  /**
   * `narrowShare` 0: every reader is asked the first way (the benchmark's "before"); `shares`: the
   * cache of readers' shares, shared with the vector plan.
   */
  constructor(opts: { narrowShare?: number; now?: () => number; shares?: ChunkShares } = {}) {
    this.#narrowShare = opts.narrowShare ?? NARROW_SHARE;
    this.#now = opts.now ?? Date.now;
    this.#shares = opts.shares ?? new ChunkShares();
  }

  /** The plan for these partitions (counting their share of the chunks when not known yet). */
  async plan(query: Query, partitions: readonly string[]): Promise<FulltextPlan> {
    if (this.#narrowShare <= 0 || this.#now() < this.#aclIndexAfter) return 'broad';
    const share = await this.#shares.shareOf(query, partitions, this.#narrowShare);
    return share <= this.#narrowShare ? 'narrow' : 'broad';
  }

  /**
   * Candidates as `searchCandidates` finds them. When the ACL index cannot answer, `switchedAfter`
   * says so: ask again in a new transaction (a failed query ends its own).
   */
  async search(query: Query, params: CandidateParams, withVectors = false): Promise<ScoredHit[]> {
    if (params.lucene === '') return [];
    const narrow =
      (await this.plan(query, params.partitions)) === 'narrow'
        ? narrowLucene(params.lucene, params.partitions)
        : undefined;
    const asked = narrow ? { ...params, lucene: narrow, index: FULLTEXT_ACL_INDEX } : params;
    return searchCandidates(query, asked, true, withVectors);
  }

  /** True when `err` came from the ACL index being unavailable: the same search may be retried. */
  switchedAfter(err: unknown): boolean {
    if (!aclIndexUnavailable(err)) return false;
    this.#aclIndexAfter = this.#now() + RETRY_ACL_INDEX_MS;
    return true;
  }
}

/** Fulltext candidates in a read transaction of their own, asked again without the ACL index if it failed. */
export function readCandidates(
  runner: ReadRunner,
  fulltext: FulltextSearch,
  params: CandidateParams,
  opts: ReadOptions,
  withVectors = false,
): Promise<ScoredHit[]> {
  const read = () => runner.read((q) => fulltext.search(q, params, withVectors), opts);
  return read().catch((err: unknown) => {
    if (fulltext.switchedAfter(err)) return read();
    throw err;
  });
}
