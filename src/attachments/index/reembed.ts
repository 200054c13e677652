// Files whose vectors are missing (added while the endpoint was down, or before it existed) or were
// made by another embedder are embedded again when a search touches them, in the background, one
// file at a time per replica; the search itself goes on with the vectors that are current. The new
// vectors replace the old ones in the store, and a store claim keeps two replicas off one file.
import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.ts';
import { chunkVectors } from './embed-texts.ts';
import type { IndexEmbeddings } from './index-embeddings.ts';
import type { OwnerIndexes } from './owner-indexes.ts';
import { records } from './owner-indexes.ts';
import { keys, ownerKey, write } from './owner-keys.ts';
import type { OwnerLocks } from './owner-lock.ts';
import { type Segment, withVectors } from './segment.ts';
import { encodeVectors } from './vectors.ts';

export interface ReembedDeps {
  store: Store;
  locks: OwnerLocks;
  indexes: OwnerIndexes;
  embeddings: IndexEmbeddings;
  /** After a failure, a file is not tried again for this long. */
  retryMs: number;
  now: () => number;
}

/** How long one replica may hold a file's re-embedding before another may take it over. */
const CLAIM_TTL_MS = 10 * 60_000;

export class Reembedder {
  private readonly d: ReembedDeps;
  private readonly queue = new Map<string, Segment>();
  private readonly failedAt = new Map<string, number>();
  private running: Promise<void> | undefined;

  constructor(deps: ReembedDeps) {
    this.d = deps;
  }

  /** Queues the segments whose vectors are not those of `id`, the embedder's current model. */
  touch(segments: readonly Segment[], id: string): void {
    for (const seg of segments) {
      if (seg.vectors?.model === id && seg.record.vectors === id) continue;
      const key = `${ownerKey(seg.record.owner)}\n${seg.record.fileId}\n${seg.record.addedAt}`;
      const failed = this.failedAt.get(key);
      if (failed !== undefined && this.d.now() - failed < this.d.retryMs) continue;
      if (!this.queue.has(key)) this.queue.set(key, seg);
    }
    if (this.queue.size > 0 && !this.running) {
      this.running = this.drain().finally(() => {
        this.running = undefined;
      });
    }
  }

  /** Resolves when nothing is queued or running (tests and benchmarks wait on it). */
  async idle(): Promise<void> {
    for (let r = this.running; r !== undefined; r = this.running) await r;
  }

  private async drain(): Promise<void> {
    for (let next = this.queue.entries().next(); !next.done; next = this.queue.entries().next()) {
      const [key, seg] = next.value;
      try {
        await this.reembed(seg);
        this.failedAt.delete(key);
      } catch (err) {
        this.failedAt.set(key, this.d.now());
        this.d.embeddings.reembedFailed(err);
      } finally {
        this.queue.delete(key);
      }
    }
  }

  private async reembed(seg: Segment): Promise<void> {
    const { store, locks, indexes } = this.d;
    const ok = ownerKey(seg.record.owner);
    const claim = keys.embedding(ok, seg.record.fileId);
    const holder = randomUUID();
    // Another replica is on it: its new version reaches this one through the version token.
    if (!(await store.claim(claim, holder, CLAIM_TTL_MS))) return;
    try {
      const { embedder, limits, gate, sentences } = this.d.embeddings;
      const vectors = await chunkVectors(embedder, seg.chunks, limits, gate, sentences);
      await locks.run(keys.lock(ok), async () => {
        const files = records(await store.kv.get(keys.files(ok)));
        const at = files.findIndex(
          (f) => f.fileId === seg.record.fileId && f.addedAt === seg.record.addedAt,
        );
        if (at < 0) return; // removed or replaced meanwhile
        const rec = { ...(files[at] as (typeof files)[number]), vectors: vectors.model };
        files[at] = rec;
        await write(store, keys.vectors(ok, rec.fileId), encodeVectors(vectors));
        await write(store, keys.files(ok), files);
        const version = randomUUID();
        await write(store, keys.version(ok), version);
        indexes.refresh(ok, version, files, withVectors(seg, rec, vectors));
      });
    } finally {
      await store.release(claim, holder);
    }
  }
}
