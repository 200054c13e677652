// Chunk vectors at ingest (writer account): every chunk of the ingested documents that has no
// vector, or one another model made, is embedded and stored with the embedder's id, so vectors of
// two models are never compared. Texts go in batches with bounded concurrency; vectors are stored
// as float arrays (`db.create.setNodeVectorProperty`, half the size of a Cypher list of floats).
// The first failure stops embedding: what is left stays searchable by words and the next run
// finishes it.
import type { Driver } from 'neo4j-driver';
import type { Embedder } from '../llm/embeddings/embedder.ts';
import { withDeadline } from '../util/deadline.ts';
import { ensureVectorIndex, type VectorIndexChange } from './schema-bootstrap.ts';

export interface EmbedChunksOptions {
  driver: Driver;
  database: string;
  embedder: Embedder;
  /** Expected vector size; 0: the model's own. */
  dimensions?: number;
  batchSize?: number;
  concurrency?: number;
  /** Longest one batch may take. */
  batchTimeoutMs?: number;
}

export interface EmbedReport {
  /** Chunks embedded in this run. */
  embedded: number;
  /** Chunks still without a vector of this model (after a failure). */
  pending: number;
  dimensions?: number;
  vectorIndex?: VectorIndexChange;
  /** Why embedding stopped early. */
  failure?: string;
}

interface Stale {
  id: string;
  text: string;
}

const DEFAULTS = { batchSize: 32, concurrency: 2, batchTimeoutMs: 120_000 };

/** What the model reads for a chunk: where it is (title, section) and what it says. */
export function embeddingText(title: unknown, heading: unknown, text: string): string {
  const where = [title, heading].filter((x) => typeof x === 'string' && x.trim() !== '');
  return where.length > 0 ? `${where.join(' — ')}\n\n${text}` : text;
}

async function staleChunks(o: EmbedChunksOptions, uris: readonly string[]): Promise<Stale[]> {
  const session = o.driver.session({ database: o.database, defaultAccessMode: 'READ' });
  try {
    const res = await session.executeRead((tx) =>
      tx.run(
        `UNWIND $uris AS uri
         MATCH (c:Chunk)-[:PART_OF]->(d:Document {source_uri: uri})
         WHERE c.embedding IS NULL OR c.embedding_model IS NULL OR c.embedding_model <> $model
         RETURN c.chunk_id AS id, c.text AS text, c.heading AS heading, d.title AS title
         ORDER BY uri, c.seq`,
        { uris, model: o.embedder.id },
      ),
    );
    return res.records.map((r) => ({
      id: String(r.get('id')),
      text: embeddingText(r.get('title'), r.get('heading'), String(r.get('text') ?? '')),
    }));
  } finally {
    await session.close();
  }
}

/** Embeds `texts`; every vector must have `dims` dimensions (any one size when undefined). */
async function embedBatch(o: EmbedChunksOptions, texts: string[], dims: number | undefined) {
  const timeout = o.batchTimeoutMs ?? DEFAULTS.batchTimeoutMs;
  const vectors = await withDeadline(
    (signal) => o.embedder.embed(texts, { purpose: 'document', signal }),
    timeout,
    () => new Error(`the embedder did not answer within ${timeout} ms`),
  );
  if (vectors.length !== texts.length)
    throw new Error(`the embedder answered ${vectors.length} vectors for ${texts.length} texts`);
  const size = dims ?? vectors[0]?.length ?? 0;
  for (const v of vectors) {
    if (v.length !== size || size === 0)
      throw new Error(`a vector has ${v.length} dimensions, not ${size}`);
    if (!v.every(Number.isFinite)) throw new Error('a vector is not finite');
  }
  return vectors;
}

async function store(o: EmbedChunksOptions, rows: Array<{ id: string; vector: number[] }>) {
  const session = o.driver.session({ database: o.database });
  try {
    await session.executeWrite((tx) =>
      tx.run(
        `UNWIND $rows AS r
         MATCH (c:Chunk {chunk_id: r.id})
         CALL db.create.setNodeVectorProperty(c, 'embedding', r.vector)
         SET c.embedding_model = $model`,
        { rows, model: o.embedder.id },
      ),
    );
  } finally {
    await session.close();
  }
}

async function awaitIndexes(o: EmbedChunksOptions): Promise<void> {
  const session = o.driver.session({ database: o.database });
  try {
    await session.executeRead((tx) => tx.run('CALL db.awaitIndexes(3600)'));
  } finally {
    await session.close();
  }
}

/** Embeds the stale chunks of `uris`; never throws for the embedder's sake (see `failure`). */
export async function embedDocuments(
  o: EmbedChunksOptions,
  uris: readonly string[],
): Promise<EmbedReport> {
  let dims: number;
  try {
    const [probe] = await embedBatch(o, ['dimension probe'], o.dimensions || undefined);
    dims = probe?.length ?? 0;
  } catch (err) {
    const pending = (await staleChunks(o, uris)).length;
    return { embedded: 0, pending, failure: err instanceof Error ? err.message : String(err) };
  }
  const vectorIndex = await ensureVectorIndex(o.driver, dims, { database: o.database });
  const stale = await staleChunks(o, uris);
  const size = o.batchSize ?? DEFAULTS.batchSize;
  const batches: Stale[][] = [];
  for (let i = 0; i < stale.length; i += size) batches.push(stale.slice(i, i + size));
  let next = 0;
  let embedded = 0;
  let failure: string | undefined;
  const worker = async () => {
    while (failure === undefined && next < batches.length) {
      const batch = batches[next++] as Stale[];
      try {
        const vectors = await embedBatch(
          o,
          batch.map((s) => s.text),
          dims,
        );
        await store(
          o,
          batch.map((s, i) => ({ id: s.id, vector: Array.from(vectors[i] as Float32Array) })),
        );
        embedded += batch.length;
      } catch (err) {
        failure ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  const workers = Math.max(1, o.concurrency ?? DEFAULTS.concurrency);
  await Promise.all(Array.from({ length: Math.min(workers, batches.length) }, worker));
  // A new index is built in the background: wait, so that the end of the run means searchable.
  if (vectorIndex !== 'kept') await awaitIndexes(o);
  return {
    embedded,
    pending: stale.length - embedded,
    dimensions: dims,
    vectorIndex,
    ...(failure !== undefined ? { failure } : {}),
  };
}
