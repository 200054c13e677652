// Per-owner attachment index over store.kv: chunks with their language, and (with an Embedder)
// their vectors, int8-quantised. Each replica keeps built indexes in memory (owner-indexes.ts) and
// checks every owner's version token with one getMany per search, so an upload handled by another
// replica is seen on the next search.
import { randomUUID } from 'node:crypto';
import type { Embedder } from '../../llm/embeddings/embedder.ts';
import { EmbeddingFallbackLog } from '../../llm/embeddings/embedding-fallback.ts';
import { RerankFallbackLog } from '../../llm/rerank/rerank-fallback.ts';
import type { Reranker } from '../../llm/rerank/reranker.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import type { Owner } from '../../model/thread-ref.ts';
import type { Store } from '../../store/store.ts';
import type { AttachmentRecord, ExtractedSection, SearchHit } from '../types.ts';
import { type Chunk, chunkSections } from './chunk.ts';
import { runSearch, type SearchOptions } from './hybrid-search.ts';
import { IndexEmbeddings } from './index-embeddings.ts';
import { labelLanguages } from './label-languages.ts';
import { OwnerIndexes, records } from './owner-indexes.ts';
import { keys, ownerKey, write } from './owner-keys.ts';
import { OwnerLocks } from './owner-lock.ts';
import { wholeText } from './passage.ts';
import { Reembedder } from './reembed.ts';
import { RELEVANCE_DEFAULTS, type RelevanceFloor } from './relevance.ts';
import type { RerankStage } from './rerank-stage.ts';
import { buildSegment, type Segment, withVectors } from './segment.ts';
import { encodeVectors } from './vectors.ts';

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
  /** Makes chunk and query vectors; without one, search is by words only. */
  embedder?: Embedder | undefined;
  /** Rescores the first stage's candidates; its score decides what counts as an answer. */
  reranker?: Reranker | undefined;
  log?: Logger;
  /** Characters of passage text one search returns at most (the model's evidence budget). */
  maxChars?: number;
  /** Characters one passage takes at most. */
  passageChars?: number;
  /** Cosine a chunk needs to count as relevant (depends on the embedding model). */
  minCosine?: number;
  /** Share of the query's words (idf-weighted) a chunk needs to count as relevant. */
  minCoverage?: number;
  /** A query embedding slower than this is given up, and that search is by words. */
  queryTimeoutMs?: number;
  /** A vector for each sentence of a chunk too, not only one for the chunk (sentence-vectors.ts). */
  sentenceVectors?: boolean;
  /** Texts per embedding call at ingest, calls in flight per process, one call's deadline. */
  embedBatch?: number;
  embedConcurrency?: number;
  embedTimeoutMs?: number;
  /** After a failed re-embedding, how long before a search tries that file again. */
  reembedRetryMs?: number;
  /** First-stage candidates the reranker rescores per search. */
  rerankCandidates?: number;
  /** Reranker score (0–1) a passage needs to count as an answer (depends on the model). */
  minRerankScore?: number;
}

export const ATTACHMENT_INDEX_DEFAULTS = {
  cacheBytes: 128 * 1024 * 1024,
  now: Date.now,
  lockTtlMs: 30_000,
  lockWaitMs: 15_000,
  maxChars: 6_000,
  passageChars: 1_200,
  minCosine: RELEVANCE_DEFAULTS.minCosine,
  minCoverage: RELEVANCE_DEFAULTS.minCoverage,
  queryTimeoutMs: 2_000,
  sentenceVectors: false,
  embedBatch: 32,
  embedConcurrency: 2,
  embedTimeoutMs: 60_000,
  reembedRetryMs: 60_000,
  rerankCandidates: 32,
  minRerankScore: RELEVANCE_DEFAULTS.minRerankScore,
} as const satisfies Required<Omit<AttachmentIndexOptions, 'embedder' | 'reranker' | 'log'>>;

/** What the caller knows about a file; the index fills in owner, chunk count and time. */
export type NewAttachment = Omit<AttachmentRecord, 'owner' | 'chunks' | 'addedAt' | 'vectors'>;

function uniqueOwners(owners: readonly Owner[]): Owner[] {
  const seen = new Set<string>();
  return owners.filter((o) => !seen.has(ownerKey(o)) && seen.add(ownerKey(o)));
}

export class AttachmentIndex {
  private readonly store: Store;
  private readonly o: Required<Omit<AttachmentIndexOptions, 'embedder' | 'reranker' | 'log'>>;
  private readonly indexes: OwnerIndexes;
  private readonly locks: OwnerLocks;
  private readonly embeddings: IndexEmbeddings | undefined;
  private readonly reembedder: Reembedder | undefined;
  private readonly rerankStage: RerankStage | undefined;

  constructor(store: Store, opts: AttachmentIndexOptions = {}) {
    const { embedder, reranker, log, ...rest } = opts;
    this.o = { ...ATTACHMENT_INDEX_DEFAULTS, ...rest };
    this.store = store;
    this.indexes = new OwnerIndexes(store, this.o.cacheBytes);
    this.locks = new OwnerLocks(store, { ttlMs: this.o.lockTtlMs, waitMs: this.o.lockWaitMs });
    const fallback = new EmbeddingFallbackLog(log ?? silentLogger());
    const limits = {
      batch: this.o.embedBatch,
      concurrency: this.o.embedConcurrency,
      timeoutMs: this.o.embedTimeoutMs,
    };
    this.embeddings = embedder
      ? new IndexEmbeddings(
          embedder,
          limits,
          this.o.queryTimeoutMs,
          fallback,
          this.o.sentenceVectors,
        )
      : undefined;
    this.reembedder = this.embeddings
      ? new Reembedder({
          store,
          locks: this.locks,
          indexes: this.indexes,
          embeddings: this.embeddings,
          retryMs: this.o.reembedRetryMs,
          now: this.o.now,
        })
      : undefined;
    this.rerankStage = reranker
      ? {
          reranker,
          candidates: this.o.rerankCandidates,
          minScore: this.o.minRerankScore,
          fallback: new RerankFallbackLog(log ?? silentLogger()),
        }
      : undefined;
  }

  /**
   * Stores a file's chunks (and their vectors) under `owner`. Images come with no sections:
   * listed, not searchable. Resolves once the file is searchable: with vectors, or by words only
   * when embedding failed (logged at most once a minute; a later search embeds it again).
   */
  async addFile(
    owner: Owner,
    record: NewAttachment,
    sections: ExtractedSection[],
  ): Promise<AttachmentRecord> {
    const ok = ownerKey(owner);
    const chunked = chunkSections(sections);
    // Embedding reads neither the chunks' languages nor their terms, so both are worked out while
    // the model embeds (on a 300-page PDF, seconds of the main thread that used to come first).
    const [vectors, words] = await Promise.all([
      chunked.length > 0 ? this.embeddings?.chunks(chunked) : undefined,
      indexWords(owner, record, chunked),
    ]);
    const chunks = words.chunks;
    const full: AttachmentRecord = {
      fileId: record.fileId,
      filename: record.filename,
      kind: record.kind,
      mime: record.mime,
      bytes: record.bytes,
      ...(record.pages === undefined ? {} : { pages: record.pages }),
      ...(record.link === undefined ? {} : { link: record.link }),
      chunks: chunks.length,
      addedAt: this.o.now(),
      owner: { kind: owner.kind, key: owner.key },
      ...(vectors ? { vectors: vectors.model } : {}),
    };
    const segment = words.segment && withVectors(words.segment, full, vectors);
    return this.locks.run(keys.lock(ok), async () => {
      const kv = this.store.kv;
      const chunksKey = keys.chunks(ok, full.fileId);
      const vectorsKey = keys.vectors(ok, full.fileId);
      if (chunks.length > 0) await write(this.store, chunksKey, chunks);
      else await kv.delete(chunksKey); // a re-upload may replace text with an image
      if (vectors) await write(this.store, vectorsKey, encodeVectors(vectors));
      else await kv.delete(vectorsKey);
      // The same file added again replaces its earlier entry and moves to the end.
      const files = records(await kv.get(keys.files(ok))).filter((f) => f.fileId !== full.fileId);
      files.push(full);
      await write(this.store, keys.files(ok), files);
      const version = randomUUID();
      await write(this.store, keys.version(ok), version);
      this.indexes.refresh(ok, version, files, segment);
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

  /**
   * The passages of exactly these owners' files that answer `query`, best first, at most `limit`,
   * their text within the character budget; [] when nothing clears the relevance floor (the files
   * do not cover it). `mode` defaults to hybrid with an embedder, else lexical; when the query
   * cannot be embedded, hybrid is lexical and vector returns []. With a reranker (unless `rerank:
   * false`) the first stage's best candidates are rescored and its score is the floor; when it
   * fails, the first stage's order and floors stand. `relevanceFloor: false` keeps weak hits (for
   * measuring ranking alone). Hits carry the exact text the model receives.
   */
  async search(
    owners: readonly Owner[],
    query: string,
    limit: number,
    opts: SearchOptions = {},
  ): Promise<SearchHit[]> {
    const list = uniqueOwners(owners);
    const n = Math.floor(limit);
    if (list.length === 0 || !(n > 0) || query.trim() === '') return [];
    const mode = opts.mode ?? (this.embeddings ? 'hybrid' : 'lexical');
    const segments = await this.segmentsOf(list);
    if (segments.length === 0) return [];
    const queryVector = mode === 'lexical' ? undefined : this.embeddings?.query(query);
    return runSearch({
      segments,
      query,
      limit: n,
      mode,
      floor:
        opts.relevanceFloor === false
          ? undefined
          : typeof opts.relevanceFloor === 'object'
            ? opts.relevanceFloor
            : this.floor(),
      budget: {
        maxChars: opts.maxChars ?? this.o.maxChars,
        passageChars: this.o.passageChars,
        wholeDocuments: opts.wholeDocuments ?? true,
      },
      queryVector,
      onVectors: (current, model) => this.reembedder?.touch(current, model),
      onWrongDimension: (err) => this.embeddings?.fellBack(err),
      rerank: opts.rerank === false ? undefined : this.rerankStage,
    });
  }

  /**
   * Every searchable file of these owners whole, when all of them together fit the character
   * budget; else []. For a question no passage matched closely: short files are read whole.
   */
  async smallFiles(owners: readonly Owner[], maxChars = this.o.maxChars): Promise<SearchHit[]> {
    const segments = await this.segmentsOf(uniqueOwners(owners));
    let left = maxChars;
    const hits: SearchHit[] = [];
    for (const seg of segments) {
      const all = wholeText(seg);
      left -= all.text.length;
      if (left < 0) return [];
      const first = seg.chunks[0];
      hits.push({
        owner: { ...seg.record.owner },
        fileId: seg.record.fileId,
        filename: seg.record.filename,
        ...(seg.record.link === undefined ? {} : { link: seg.record.link }),
        ...(first?.page === undefined ? {} : { page: first.page }),
        passage: all.text,
        whole: true,
        start: all.start,
        end: all.end,
        score: 0,
      });
    }
    return hits;
  }

  /** Forgets every file of `owner` (a session or channel that is gone, a project unshared). */
  async removeOwner(owner: Owner): Promise<void> {
    const ok = ownerKey(owner);
    await this.locks.run(keys.lock(ok), async () => {
      const kv = this.store.kv;
      // Version first: from here on every replica treats the owner as empty.
      await kv.delete(keys.version(ok));
      const files = records(await kv.get(keys.files(ok)));
      await kv.deleteMany([
        ...files.flatMap((f) => [keys.chunks(ok, f.fileId), keys.vectors(ok, f.fileId)]),
        keys.files(ok),
      ]);
      this.indexes.delete(ok);
    });
  }

  /** The relevance floors this index applies. */
  floor(): RelevanceFloor {
    return { minCoverage: this.o.minCoverage, minCosine: this.o.minCosine };
  }

  /** Resolves when no file is being embedded again in the background. */
  idle(): Promise<void> {
    return this.reembedder?.idle() ?? Promise.resolve();
  }

  /** The searchable segments of these (distinct) owners, current with the store. */
  private async segmentsOf(owners: readonly Owner[]) {
    if (owners.length === 0) return [];
    const oks = owners.map(ownerKey);
    const versions = await this.store.kv.getMany(oks.map(keys.version));
    const indexes = await Promise.all(oks.map((ok, i) => this.indexes.get(ok, versions[i])));
    return indexes.flatMap((ix) => ix.segments);
  }
}

/** A new file's chunks labelled with their languages, and its words' index (vectors come later). */
async function indexWords(
  owner: Owner,
  record: NewAttachment,
  chunked: readonly Chunk[],
): Promise<{ chunks: Chunk[]; segment: Segment | undefined }> {
  const chunks = await labelLanguages(chunked);
  if (chunks.length === 0) return { chunks, segment: undefined };
  // Its record is replaced by the stored one (with its time and vectors' model) once both are done.
  const provisional: AttachmentRecord = {
    ...record,
    chunks: chunks.length,
    addedAt: 0,
    owner: { kind: owner.kind, key: owner.key },
  };
  return { chunks, segment: await buildSegment(provisional, chunks) };
}
