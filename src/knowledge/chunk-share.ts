// A reader's share of the chunks, which picks the fulltext plan and the vector plan alike: counted
// once per set of partitions (the set, not the order it came in) and remembered for ten minutes,
// in one cache both plans share, so a new reader costs one count, not one per leg. The count is
// of the chunks whose first partition is one of the reader's (an estimate that only picks a
// plan) and stops just past the largest threshold asked for, so a broad reader costs no more to
// count than a narrow one.
import { LRUCache } from 'lru-cache';
import { int } from 'neo4j-driver';
import type { Query } from './read-runner.ts';

const SHARE_TTL_MS = 10 * 60_000;

interface Counted {
  share: number;
  /** The count stopped just past this share: a larger share reads as just above it. */
  upTo: number;
}

/** A set of partitions as a cache key: the set, not the order it came in. */
export function partitionSetKey(partitions: readonly string[]): string {
  return [...new Set(partitions)].sort().join('\u0000');
}

export class ChunkShares {
  readonly #counted: LRUCache<string, Counted>;

  constructor(opts: { ttlMs?: number } = {}) {
    this.#counted = new LRUCache({ max: 10_000, ttl: opts.ttlMs ?? SHARE_TTL_MS });
  }

  /**
   * The share of the chunks in `partitions`, exact up to `upTo` (beyond it, some value above
   * `upTo`). A share counted before is reused when it answers the same question.
   */
  async shareOf(query: Query, partitions: readonly string[], upTo: number): Promise<number> {
    const key = partitionSetKey(partitions);
    const known = this.#counted.get(key);
    if (known && (known.share <= known.upTo || known.upTo >= upTo)) return known.share;
    const share = await countShare(query, partitions, upTo);
    this.#counted.set(key, { share, upTo });
    return share;
  }
}

/**
 * The share of chunks whose first partition is one of `partitions`, counted no further than just
 * past `upTo`.
 */
async function countShare(
  query: Query,
  partitions: readonly string[],
  upTo: number,
): Promise<number> {
  const [all] = await query('MATCH (c:Chunk) RETURN count(c) AS total');
  const total = Number(all?.total ?? 0);
  if (total === 0) return 1;
  const cap = Math.floor(total * upTo) + 1;
  const [seen] = await query(
    `MATCH (c:Chunk) WHERE c.acl_partition IN $partitions
     WITH c LIMIT $cap RETURN count(c) AS seen`,
    { partitions: [...partitions], cap: int(cap) },
  );
  return Number(seen?.seen ?? 0) / total;
}
