// One file into one owner: download → sniff → extract (worker) or process (image) → index.
// Every failure becomes an AttachmentError whose message the adapter posts where the file was.
import type { Logger } from '../log/logger.ts';
import type { Owner } from '../model/thread-ref.ts';
import type { Store } from '../store/store.ts';
import { settlesWithin } from '../util/deadline.ts';
import { extractDocument } from './extract/index.ts';
import { processImage } from './images/process-image.ts';
import type { AttachmentIndex } from './index/index.ts';
import { sniff } from './sniff.ts';
import {
  AttachmentError,
  type AttachmentKind,
  type AttachmentRecord,
  type ExtractedDocument,
  type ExtractLimits,
  type ImageLimits,
} from './types.ts';

export interface IncomingFile {
  id: string;
  name: string;
  /** Declared size, when the platform tells it: lets a huge file be refused before downloading. */
  size?: number;
  /** Where a person opens the file (see `FileRef.link`); kept with the record for sources. */
  link?: string;
}

/** The part of a platform's file reference the ingestor keeps. */
export function incomingFile(f: {
  id: string;
  name: string;
  size?: number | undefined;
  link?: string | undefined;
}): IncomingFile {
  return {
    id: f.id,
    name: f.name,
    ...(f.size !== undefined ? { size: f.size } : {}),
    ...(f.link !== undefined ? { link: f.link } : {}),
  };
}

export type IngestOutcome =
  | { status: 'ready'; record: AttachmentRecord; notice?: string }
  | { status: 'failed'; error: AttachmentError }
  | { status: 'duplicate' };

export interface IngestorOptions {
  index: AttachmentIndex;
  store: Store;
  log: Logger;
  maxFileBytes: number;
  extract: ExtractLimits;
  images: ImageLimits;
  /** How long an ingest claim lasts: a second delivery of the same file within it is a duplicate. */
  claimTtlMs?: number;
  onOutcome?: (kind: string, outcome: string) => void;
}

interface StoredImage {
  mime: string;
  data: string;
}

const imageKey = (owner: Owner, fileId: string) => `img:${owner.key}:${fileId}`;

export class Ingestor {
  private readonly o: IngestorOptions;
  /** Files being read now, per owner: a question waits for them before searching. */
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();

  constructor(o: IngestorOptions) {
    this.o = o;
  }

  async ingest(
    owner: Owner,
    file: IncomingFile,
    fetchBytes: () => Promise<Uint8Array>,
  ): Promise<IngestOutcome> {
    const claimed = await this.o.store.claim(
      `ingest:${owner.key}:${file.id}`,
      'ingest',
      this.o.claimTtlMs ?? 24 * 3600_000,
    );
    if (!claimed) return { status: 'duplicate' };
    const work = this.run(owner, file, fetchBytes);
    const set = this.inFlight.get(owner.key) ?? new Set();
    set.add(work);
    this.inFlight.set(owner.key, set);
    try {
      return await work;
    } finally {
      set.delete(work);
      if (set.size === 0) this.inFlight.delete(owner.key);
    }
  }

  /** Resolves once files of these owners that are being read now are done (or after `timeoutMs`). */
  async waitForOwners(owners: readonly Owner[], timeoutMs: number): Promise<void> {
    const pending = owners.flatMap((o) => [...(this.inFlight.get(o.key) ?? [])]);
    if (pending.length === 0) return;
    await settlesWithin(Promise.allSettled(pending), timeoutMs);
  }

  async imageBytes(
    owner: Owner,
    fileId: string,
  ): Promise<{ data: Buffer; mime: string } | undefined> {
    const stored = (await this.o.store.kv.get(imageKey(owner, fileId))) as StoredImage | undefined;
    return stored ? { data: Buffer.from(stored.data, 'base64'), mime: stored.mime } : undefined;
  }

  async removeOwner(owner: Owner): Promise<void> {
    for (const f of await this.o.index.listFiles([owner])) {
      if (f.kind === 'image') await this.o.store.kv.delete(imageKey(owner, f.fileId));
    }
    await this.o.index.removeOwner(owner);
  }

  private async run(
    owner: Owner,
    file: IncomingFile,
    fetchBytes: () => Promise<Uint8Array>,
  ): Promise<IngestOutcome> {
    const log = this.o.log.child({ owner: owner.key, file_id: file.id });
    let kind: string = 'unknown';
    try {
      if (file.size !== undefined && file.size > this.o.maxFileBytes) {
        throw new AttachmentError(
          'too_large',
          file.name,
          `${Math.ceil(file.size / 1024 / 1024)} MB; the limit is ${Math.floor(this.o.maxFileBytes / 1024 / 1024)} MB`,
        );
      }
      const bytes = await fetchBytes();
      if (bytes.byteLength === 0) throw new AttachmentError('empty', file.name);
      const sniffed = sniff(bytes);
      kind = sniffed.kind;
      const started = performance.now();
      const size = bytes.byteLength; // the bytes move to the extraction worker
      const { record, notice } = await this.take(owner, file, bytes, sniffed.kind, sniffed.mime);
      log.info(
        {
          kind: record.kind,
          bytes: size,
          chunks: record.chunks,
          ms: Math.round(performance.now() - started),
        },
        'attachment ready',
      );
      this.o.onOutcome?.(record.kind, 'ready');
      return notice ? { status: 'ready', record, notice } : { status: 'ready', record };
    } catch (err) {
      const error =
        err instanceof AttachmentError
          ? err
          : new AttachmentError('corrupt', file.name, '', { cause: err });
      log.warn({ err, code: error.code, kind }, 'attachment refused');
      this.o.onOutcome?.(kind, error.code);
      return { status: 'failed', error };
    }
  }

  private async take(
    owner: Owner,
    file: IncomingFile,
    bytes: Uint8Array,
    kind: string,
    mime: string,
  ) {
    const base = {
      fileId: file.id,
      filename: file.name,
      mime,
      bytes: bytes.byteLength,
      ...(file.link !== undefined ? { link: file.link } : {}),
    };
    switch (kind) {
      case 'image': {
        const img = await processImage(bytes, file.name, this.o.images);
        await this.o.store.kv.set(imageKey(owner, file.id), {
          mime: img.mime,
          data: img.data.toString('base64'),
        } satisfies StoredImage);
        const record = await this.o.index.addFile(owner, { ...base, kind: 'image' }, []);
        return { record };
      }
      case 'pdf':
      case 'docx':
      case 'text':
      case 'ole': {
        const docKind = kind === 'ole' ? 'docx' : kind;
        const doc = await extractDocument(bytes, docKind, file.name, this.o.extract);
        const record = await this.o.index.addFile(
          owner,
          { ...base, kind: doc.kind as AttachmentKind, ...(doc.pages ? { pages: doc.pages } : {}) },
          doc.sections,
        );
        return { record, notice: this.noticeFor(file.name, kind, doc) };
      }
      case 'html':
        if (/\.html?$/i.test(file.name)) {
          const doc = await extractDocument(bytes, 'text', file.name, this.o.extract);
          return {
            record: await this.o.index.addFile(owner, { ...base, kind: 'text' }, doc.sections),
          };
        }
        throw new AttachmentError('no_access', file.name);
      case 'svg':
        throw new AttachmentError(
          'unsupported_type',
          file.name,
          'SVG images are not accepted, because they can reference outside files',
        );
      case 'zip':
        throw new AttachmentError('unsupported_type', file.name, 'it is a ZIP archive');
      default:
        throw new AttachmentError(
          'unsupported_type',
          file.name,
          'it looks like a binary file, not text',
        );
    }
  }

  private noticeFor(name: string, kind: string, doc: ExtractedDocument): string | undefined {
    const notes: string[] = [];
    const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
    if (ext === 'pdf' && kind !== 'pdf')
      notes.push(
        `${name} is not really a PDF (it is a ${kind === 'docx' ? 'Word document' : 'text file'}); I read it as what it is.`,
      );
    if (doc.partial) notes.push(`I read ${name}, but ${doc.partial}.`);
    return notes.length ? notes.join(' ') : undefined;
  }
}
