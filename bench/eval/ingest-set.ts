// Puts a set's documents into one thread's files the way the bot does (sniff → extract in the
// worker → chunk → index, through the project's Ingestor) and keeps each file's extracted text, as
// the index joins it, for the label checks and for reading a hit's whole chunk.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { extractDocument } from '../../src/attachments/extract/index.ts';
import type { AttachmentIndex } from '../../src/attachments/index/attachment-index.ts';
import { joinSections } from '../../src/attachments/index/chunk.ts';
import { Ingestor } from '../../src/attachments/ingest.ts';
import type { ExtractLimits } from '../../src/attachments/types.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { Owner } from '../../src/model/thread-ref.ts';
import type { Store } from '../../src/store/store.ts';
import type { EvalSet } from './labels.ts';

export interface IngestedDocument {
  file: string;
  kind: string;
  bytes: number;
  chunks: number;
  /** Characters of extracted text. */
  chars: number;
}

export interface IngestedSet {
  documents: IngestedDocument[];
  /** File name → extracted text, sections joined as chunk offsets count them. */
  texts: Map<string, string>;
  /** Wall time from the first file's bytes to the last file being searchable. */
  ingestMs: number;
}

const IMAGE_LIMITS = { maxInputPixels: 4e7, maxSide: 1568, timeoutMs: 20_000 };

export async function ingestSet(
  set: EvalSet,
  index: AttachmentIndex,
  store: Store,
  owner: Owner,
  extract: ExtractLimits,
): Promise<IngestedSet> {
  const ingestor = new Ingestor({
    index,
    store,
    log: silentLogger(),
    maxFileBytes: 50 * 1024 * 1024,
    extract,
    images: IMAGE_LIMITS,
  });
  const files = await Promise.all(
    set.documents.map(async (d) => ({
      file: d.file,
      bytes: await readFile(path.join(set.documentsDir, d.file)),
    })),
  );
  const documents: IngestedDocument[] = [];
  const texts = new Map<string, string>();
  const started = performance.now();
  for (const { file, bytes } of files) {
    // The ingestor hands the bytes to the extraction worker (detaching them): give it a copy.
    const outcome = await ingestor.ingest(owner, { id: file, name: file }, async () =>
      Uint8Array.from(bytes),
    );
    if (outcome.status !== 'ready') {
      const why = outcome.status === 'failed' ? outcome.error.userMessage : 'a duplicate';
      throw new Error(`${set.name}: ${file} was not taken in: ${why}`);
    }
    const { kind, chunks } = outcome.record;
    documents.push({ file, kind, bytes: bytes.byteLength, chunks, chars: 0 });
  }
  const ingestMs = performance.now() - started;
  for (const doc of documents) {
    const bytes = Uint8Array.from(files.find((f) => f.file === doc.file)?.bytes ?? []);
    const kind = doc.kind === 'pdf' || doc.kind === 'docx' ? doc.kind : 'text';
    const text = joinSections((await extractDocument(bytes, kind, doc.file, extract)).sections);
    texts.set(doc.file, text);
    doc.chars = text.length;
  }
  return { documents, texts, ingestMs };
}
