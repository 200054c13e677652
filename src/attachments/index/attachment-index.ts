// Per-owner attachment index over store.kv. Each replica keeps built indexes in memory (LRU by
// owner, bounded by their estimated size in bytes) and checks every owner's version token with one getMany per search, so an upload handled
// by another replica is seen on the next search.
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { Owner } from '../../model/thread-ref.ts';
import type { Store } from '../../store/store.ts';
import type { AttachmentRecord, ExtractedSection, SearchHit } from '../types.ts';
import { idfs, rank } from './bm25.ts';
import { type Chunk, chunkSections } from './chunk.ts';
import { keys, ownerKey } from './owner-keys.ts';
import { OwnerLocks } from './owner-lock.ts';
import { toHit } from './search-hit.ts';
import { buildSegment, type Segment, segmentMatches } from './segment.ts';
import { tokenize } from './tokenize.ts';

export interface AttachmentIndexOptions {
  /**
   * Memory for built indexes kept between searches, in (estimated) bytes; least recently used
   * owners go first. An owner bigger than this is rebuilt on each search instead of cached.
   */
  cacheBytes?: number;
  /** Clock for `addedAt`. */
  now?: () => number;
  /** Lifetime of the write claim if its holder dies mid-write. */
  lockTtlMs?: number;
  /** How long a write waits for another replica's write to the same owner. */
  lockWaitMs?: number;
}

export const ATTACHMENT_INDEX_DEFAULTS = {
  cacheBytes: 128 * 1024 * 1024,
  now: Date.now,
  lockTtlMs: 30_000,
  lockWaitMs: 15_000,
} as const satisfies Required<AttachmentIndexOptions>;

/** What the caller knows about a file; the index fills in owner, chunk count and time. */
export type NewAttachment = Omit<AttachmentRecord, 'owner' | 'chunks' | 'addedAt'>;

/** Distinct query terms scored at most: a pasted paragraph as a query stays cheap. */
const MAX_QUERY_TERMS = 64;

interface OwnerIndex {
  readonly version: string;
  readonly byId: ReadonlyMap<string, Segment>;
  /** Searchable files in the order they were added (ties rank in this order). */
  readonly segments: readonly Segment[];
}

const EMPTY: OwnerIndex = { version: '', byId: new Map(), segments: [] };

/** Estimated heap size of a built index (segments shared with an older version count in both). */
function indexBytes(index: OwnerIndex): number {
  let bytes = 128 + index.version.length * 2;
  for (const seg of index.segments) bytes += seg.bytes + 48;
  return Math.max(1, Math.ceil(bytes));
}

function records(value: unknown): AttachmentRecord[] {
  return Array.isArray(value) ? (value as AttachmentRecord[]) : [];
}

function uniqueOwners(owners: readonly Owner[]): Owner[] {
  const seen = new Set<string>();
  return owners.filter((o) => !seen.has(ownerKey(o)) && seen.add(ownerKey(o)));
}

function inOrder(files: readonly AttachmentRecord[], byId: ReadonlyMap<string, Segment>) {
  return files.flatMap((f) => byId.get(f.fileId) ?? []);
}

export class AttachmentIndex {
  private readonly store: Store;
  private readonly now: () => number;
  private readonly cache: LRUCache<string, OwnerIndex>;
  private readonly loading = new Map<string, Promise<OwnerIndex>>();
  private readonly locks: OwnerLocks;

  constructor(store: Store, opts: AttachmentIndexOptions = {}) {
    const o = { ...ATTACHMENT_INDEX_DEFAULTS, ...opts };
    this.store = store;
    this.now = o.now;
    this.cache = new LRUCache<string, OwnerIndex>({
      maxSize: Math.max(1, Math.floor(o.cacheBytes)),
      sizeCalculation: indexBytes,
    });
    this.locks = new OwnerLocks(store, { ttlMs: o.lockTtlMs, waitMs: o.lockWaitMs });
  }

  /** Stores a file's chunks under `owner`. Images come with no sections: listed, not searchable. */
  async addFile(
    owner: Owner,
    record: NewAttachment,
    sections: ExtractedSection[],
  ): Promise<AttachmentRecord> {
    const ok = ownerKey(owner);
    const chunks = chunkSections(sections);
    return this.locks.run(keys.lock(ok), async () => {
      const kv = this.store.kv;
      const full: AttachmentRecord = {
        fileId: record.fileId,
        filename: record.filename,
        kind: record.kind,
        mime: record.mime,
        bytes: record.bytes,
        ...(record.pages === undefined ? {} : { pages: record.pages }),
        ...(record.link === undefined ? {} : { link: record.link }),
        chunks: chunks.length,
        addedAt: this.now(),
        owner: { kind: owner.kind, key: owner.key },
      };
      const chunksKey = keys.chunks(ok, full.fileId);
      if (chunks.length > 0) await this.write(chunksKey, chunks);
      else await kv.delete(chunksKey); // a re-upload may replace text with an image
      // The same file added again replaces its earlier entry and moves to the end.
      const files = records(await kv.get(keys.files(ok))).filter((f) => f.fileId !== full.fileId);
      files.push(full);
      await this.write(keys.files(ok), files);
      const version = randomUUID();
      await this.write(keys.version(ok), version);
      this.refreshCache(ok, version, files, full, chunks);
      return full;
    });
  }

  /** Files of these owners (images too), newest last. */
  async listFiles(owners: readonly Owner[]): Promise<AttachmentRecord[]> {
    const list = uniqueOwners(owners);
    if (list.length === 0) return [];
    const stored = await this.store.kv.getMany(list.map((o) => keys.files(ownerKey(o))));
    const all = stored.flatMap((v, i) => records(v).map((rec, j) => ({ rec, i, j })));
    all.sort((a, b) => a.rec.addedAt - b.rec.addedAt || a.i - b.i || a.j - b.j);
    return all.map((x) => x.rec);
  }

  /** BM25 over the chunks of exactly these owners; best first, ties in owner and file order. */
  async search(owners: readonly Owner[], query: string, limit: number): Promise<SearchHit[]> {
    const list = uniqueOwners(owners);
    const terms = [...new Set(tokenize(query))].slice(0, MAX_QUERY_TERMS);
    const n = Math.floor(limit);
    if (list.length === 0 || terms.length === 0 || !(n > 0)) return [];
    const oks = list.map(ownerKey);
    const versions = await this.store.kv.getMany(oks.map(keys.version));
    const indexes = await Promise.all(
      oks.map((ok, i) => this.ownerIndex(ok, versions[i] as unknown)),
    );
    const segments = indexes.flatMap((ix) => ix.segments);
    const weights = idfs(segments, terms);
    return rank(segments, weights, n).map((r) => toHit(segments, r, weights));
  }

  /** Forgets every file of `owner` (a session or channel that is gone, a project unshared). */
  async removeOwner(owner: Owner): Promise<void> {
    const ok = ownerKey(owner);
    await this.locks.run(keys.lock(ok), async () => {
      const kv = this.store.kv;
      // Version first: from here on every replica treats the owner as empty.
      await kv.delete(keys.version(ok));
      const files = records(await kv.get(keys.files(ok)));
      await kv.deleteMany([...files.map((f) => keys.chunks(ok, f.fileId)), keys.files(ok)]);
      this.cache.delete(ok);
    });
  }

  private async write(key: string, value: unknown): Promise<void> {
    if (!(await this.store.kv.set(key, value))) {
      throw new Error(`attachment index: the store did not accept ${key}`);
    }
  }

  private ownerIndex(ok: string, version: unknown): Promise<OwnerIndex> | OwnerIndex {
    if (typeof version !== 'string') {
      this.cache.delete(ok);
      return EMPTY;
    }
    const cached = this.cache.get(ok);
    if (cached?.version === version) return cached;
    // Concurrent searches of a changed owner share one load.
    const loadKey = `${ok}\n${version}`;
    let pending = this.loading.get(loadKey);
    if (!pending) {
      pending = this.load(ok, version, cached).finally(() => this.loading.delete(loadKey));
      this.loading.set(loadKey, pending);
    }
    return pending;
  }

  private async load(ok: string, version: string, previous?: OwnerIndex): Promise<OwnerIndex> {
    // Read after the version, the file list is at least as new as it: never older than claimed.
    const files = records(await this.store.kv.get(keys.files(ok)));
    const byId = new Map<string, Segment>();
    const missing: AttachmentRecord[] = [];
    for (const f of files) {
      if (f.chunks === 0) continue;
      const seg = previous?.byId.get(f.fileId);
      if (seg && segmentMatches(seg, f)) byId.set(f.fileId, seg);
      else missing.push(f);
    }
    if (missing.length > 0) {
      const stored = await this.store.kv.getMany(missing.map((f) => keys.chunks(ok, f.fileId)));
      for (const [i, f] of missing.entries()) {
        const chunks = stored[i] as unknown;
        // Absent when the owner was removed meanwhile; the next version check sorts it out.
        if (!Array.isArray(chunks)) continue;
        byId.set(f.fileId, buildSegment(f, chunks as Chunk[]));
        await nextTurn(); // let other turns run between big files
      }
    }
    const index: OwnerIndex = { version, byId, segments: inOrder(files, byId) };
    this.cache.set(ok, index);
    return index;
  }

  /** After our own write: keep a cached index current instead of rebuilding it on next search. */
  private refreshCache(
    ok: string,
    version: string,
    files: readonly AttachmentRecord[],
    added: AttachmentRecord,
    chunks: readonly Chunk[],
  ): void {
    const cached = this.cache.peek(ok);
    if (!cached) return;
    const byId = new Map<string, Segment>();
    for (const f of files) {
      if (f === added || f.chunks === 0) continue;
      const seg = cached.byId.get(f.fileId);
      // A file another replica added that this one never loaded: rebuild on the next search.
      if (!seg || !segmentMatches(seg, f)) {
        this.cache.delete(ok);
        return;
      }
      byId.set(f.fileId, seg);
    }
    if (chunks.length > 0) byId.set(added.fileId, buildSegment(added, chunks));
    this.cache.set(ok, { version, byId, segments: inOrder(files, byId) });
  }
}
