// Built per-owner indexes of this replica: an LRU by owner, bounded by estimated bytes, checked
// against the owner's version token on every search so another replica's upload is seen. A
// rebuild reuses every segment whose file did not change, and rereads only the vectors of a file
// whose vectors did.
import { LRUCache } from 'lru-cache';
import type { Store } from '../../store/store.ts';
import type { AttachmentRecord } from '../types.ts';
import type { Chunk } from './chunk.ts';
import { labelLanguagesNow } from './label-languages.ts';
import { keys } from './owner-keys.ts';
import {
  buildSegment,
  type Segment,
  segmentMatches,
  vectorsMatch,
  withVectors,
} from './segment.ts';
import { type ChunkVectors, decodeVectors } from './vectors.ts';

export interface OwnerIndex {
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

export function records(value: unknown): AttachmentRecord[] {
  return Array.isArray(value) ? (value as AttachmentRecord[]) : [];
}

function inOrder(files: readonly AttachmentRecord[], byId: ReadonlyMap<string, Segment>) {
  return files.flatMap((f) => byId.get(f.fileId) ?? []);
}

/** The vectors a record names, if the stored ones are those and fit its chunks. */
export function vectorsFor(rec: AttachmentRecord, stored: unknown): ChunkVectors | undefined {
  if (rec.vectors === undefined) return undefined;
  const v = decodeVectors(stored, rec.chunks);
  return v?.model === rec.vectors ? v : undefined;
}

export class OwnerIndexes {
  private readonly store: Store;
  private readonly cache: LRUCache<string, OwnerIndex>;
  private readonly loading = new Map<string, Promise<OwnerIndex>>();

  constructor(store: Store, cacheBytes: number) {
    this.store = store;
    this.cache = new LRUCache<string, OwnerIndex>({
      maxSize: Math.max(1, Math.floor(cacheBytes)),
      sizeCalculation: indexBytes,
    });
  }

  /** The owner's index at `version` (the stored token; not a string: the owner has nothing). */
  get(ok: string, version: unknown): Promise<OwnerIndex> | OwnerIndex {
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

  delete(ok: string): void {
    this.cache.delete(ok);
  }

  /**
   * After this replica's own write: keeps a cached index current instead of rebuilding it on the
   * next search. `changed` is the segment of the file just written (absent for an image).
   */
  refresh(
    ok: string,
    version: string,
    files: readonly AttachmentRecord[],
    changed?: Segment,
  ): void {
    const cached = this.cache.peek(ok);
    if (!cached) return;
    const byId = new Map<string, Segment>();
    for (const f of files) {
      if (f.chunks === 0) continue;
      if (changed && f.fileId === changed.record.fileId) {
        byId.set(f.fileId, changed);
        continue;
      }
      const seg = cached.byId.get(f.fileId);
      // A file another replica added or re-embedded that this one never loaded: rebuild next time.
      if (!seg || !segmentMatches(seg, f) || !vectorsMatch(seg, f)) {
        this.cache.delete(ok);
        return;
      }
      byId.set(f.fileId, seg);
    }
    this.cache.set(ok, { version, byId, segments: inOrder(files, byId) });
  }

  private async load(ok: string, version: string, previous?: OwnerIndex): Promise<OwnerIndex> {
    // Read after the version, the file list is at least as new as it: never older than claimed.
    const files = records(await this.store.kv.get(keys.files(ok)));
    const byId = new Map<string, Segment>();
    const missing: AttachmentRecord[] = [];
    const revectored: [AttachmentRecord, Segment][] = [];
    for (const f of files) {
      if (f.chunks === 0) continue;
      const seg = previous?.byId.get(f.fileId);
      if (seg && segmentMatches(seg, f)) {
        if (vectorsMatch(seg, f)) byId.set(f.fileId, seg);
        else revectored.push([f, seg]);
      } else missing.push(f);
    }
    const vectorKeys = [...revectored.map(([f]) => f), ...missing].map((f) =>
      keys.vectors(ok, f.fileId),
    );
    const wanted = [...missing.map((f) => keys.chunks(ok, f.fileId)), ...vectorKeys];
    const stored = wanted.length > 0 ? await this.store.kv.getMany(wanted) : [];
    const chunkValues = stored.slice(0, missing.length) as unknown[];
    const vectorValues = stored.slice(missing.length) as unknown[];
    for (const [i, [f, seg]] of revectored.entries()) {
      byId.set(f.fileId, withVectors(seg, f, vectorsFor(f, vectorValues[i])));
    }
    for (const [i, f] of missing.entries()) {
      const chunks = chunkValues[i];
      // Absent when the owner was removed meanwhile; the next version check sorts it out.
      if (!Array.isArray(chunks)) continue;
      const vectors = vectorsFor(f, vectorValues[revectored.length + i]);
      byId.set(f.fileId, await buildSegment(f, labelLanguagesNow(chunks as Chunk[]), vectors));
    }
    const index: OwnerIndex = { version, byId, segments: inOrder(files, byId) };
    this.cache.set(ok, index);
    return index;
  }
}
