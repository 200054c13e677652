// Which vector index a reader asks. The k nearest chunks come before any filter the index does not
// know, so a reader who may see 1 of 20 partitions has the broad plan (`chunk_embedding`, model
// filter only) walk ~25 neighbours per visible one. The ACL index (`chunk_embedding_acl`) keeps
// each chunk's partitions as one string (`acl_key`) beside the vector, so `acl_key IN $keys` makes
// the index itself skip everyone else's chunks: the narrow plan. A chunk may be searched in
// several partitions, and the index filter has no "one of a list" for a list property; so the
// keys are every partition set a chunk of the reader's can have: each of their partitions alone,
// and the sets of several partitions that documents name with one of theirs (read from the
// documents, remembered a minute: a document of a new set of partitions waits that long for
// this plan). The same ACL filter runs after either index (`neighbourCypher`), so both plans
// return only visible chunks; the narrow one finds them without walking past the others.
// A reader whose partitions hold more than `narrowShare` of the chunks, or who would need more than
// `MAX_KEYS` keys, asks the broad plan; so does a graph whose writer has not built the ACL index
// (or a server that cannot filter so), the index tried again a minute later.
import { LRUCache } from 'lru-cache';
import { partitionsCypher } from './acl.ts';
import { ChunkShares, partitionSetKey } from './chunk-share.ts';
import type { Query } from './read-runner.ts';
import { aclKeyCypher, aclKeyOf, VECTOR_ACL_INDEX } from './vector-queries.ts';

/** Readers whose partitions hold at most this share of the chunks ask the ACL index. */
export const NARROW_VECTOR_SHARE = 0.2;
const MAX_KEYS = 200;
const KEYS_TTL_MS = 60_000;
const RETRY_ACL_INDEX_MS = 60_000;

/**
 * The ACL index is missing, not online, or the server cannot filter on it: an error whose words
 * name that index or its `acl_key` (an error of the broad plan names neither).
 */
function aclIndexUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const { message, cause } = e as { message?: unknown; cause?: unknown };
    if (
      typeof message === 'string' &&
      (message.includes(VECTOR_ACL_INDEX) || message.includes('acl_key'))
    )
      return true;
    e = cause;
  }
  return false;
}

export class VectorPlan {
  readonly #narrowShare: number;
  readonly #now: () => number;
  readonly #shares: ChunkShares;
  readonly #keys = new LRUCache<string, string[]>({ max: 10_000, ttl: KEYS_TTL_MS });
  #aclIndexAfter = 0;

  /**
   * `narrowShare` 0: every reader asks the broad plan (the benchmark's "before"); `shares`: the
   * cache of readers' shares, shared with the fulltext plan.
   */
  constructor(opts: { narrowShare?: number; now?: () => number; shares?: ChunkShares } = {}) {
    this.#narrowShare = opts.narrowShare ?? NARROW_VECTOR_SHARE;
    this.#now = opts.now ?? Date.now;
    this.#shares = opts.shares ?? new ChunkShares();
  }

  /** The `acl_key`s to search for these partitions, or undefined: the broad plan. */
  async keysFor(query: Query, partitions: readonly string[]): Promise<string[] | undefined> {
    if (this.#narrowShare <= 0 || this.#now() < this.#aclIndexAfter) return undefined;
    if (partitions.length === 0 || partitions.length > MAX_KEYS) return undefined;
    const key = partitionSetKey(partitions);
    const share = await this.#shares.shareOf(query, partitions, this.#narrowShare);
    if (share > this.#narrowShare) return undefined;
    let keys = this.#keys.get(key);
    if (keys === undefined) {
      keys = await keysOf(query, partitions);
      this.#keys.set(key, keys);
    }
    return keys.length <= MAX_KEYS ? keys : undefined;
  }

  /** True when `err` came from the ACL index being unavailable: the same search may be retried. */
  switchedAfter(err: unknown): boolean {
    if (this.#narrowShare <= 0 || this.#now() < this.#aclIndexAfter) return false;
    if (!aclIndexUnavailable(err)) return false;
    this.#aclIndexAfter = this.#now() + RETRY_ACL_INDEX_MS;
    return true;
  }
}

/**
 * Each partition alone, and every set of several partitions a document names with one of them
 * (written on its chunks as `acl_key` by the same rule, `aclKeyCypher`).
 */
async function keysOf(query: Query, partitions: readonly string[]): Promise<string[]> {
  const rows = await query(
    `MATCH (d:Document)
     WITH ${partitionsCypher('d')} AS ps
     WHERE size(ps) > 1 AND any(p IN ps WHERE p IN $partitions)
     RETURN DISTINCT ${aclKeyCypher('ps')} AS key`,
    { partitions: [...partitions] },
  );
  const several = rows.flatMap((r) => (typeof r.key === 'string' ? [r.key] : []));
  return [...new Set([...partitions.map((p) => aclKeyOf([p])), ...several])];
}
