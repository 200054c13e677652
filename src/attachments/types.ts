// Shared shapes of the attachments feature: download → sniff → extract/process → index → search.
import { type ErrorWire, ThreadmindError } from '../model/errors.ts';
import type { Owner } from '../model/thread-ref.ts';

export type AttachmentKind = 'pdf' | 'docx' | 'text' | 'image';

export type AttachmentErrorCode =
  | 'too_large'
  | 'unsupported_type'
  | 'encrypted'
  | 'corrupt'
  | 'timed_out'
  | 'empty'
  | 'no_text_layer'
  | 'too_complex'
  | 'no_access'
  | 'download_failed';

const USER_MESSAGES: Record<AttachmentErrorCode, (name: string, detail: string) => string> = {
  too_large: (n, d) => `${n} is too large for me to read${d ? ` (${d})` : ''}.`,
  unsupported_type: (n, d) =>
    `I can't read ${n}: ${d || 'this file type is not supported'}. I read PDF, DOCX, text, Markdown, CSV, JSON, source code and images (PNG, JPEG, GIF, WebP).`,
  encrypted: (n) =>
    `${n} is password-protected, so I can't read it. Share a copy without a password.`,
  corrupt: (n, d) => `${n} looks damaged or incomplete, so I can't read it${d ? ` (${d})` : ''}.`,
  timed_out: (n) => `Reading ${n} took too long, so I stopped. Try a smaller or simpler file.`,
  empty: (n) => `${n} is empty: there is no text in it to read.`,
  no_text_layer: (n) =>
    `${n} has no text layer (it looks like a scan), so I can't search it. Share a text PDF, or paste the part you need.`,
  too_complex: (n, d) =>
    `${n} is too large or complex to unpack safely${d ? ` (${d})` : ''}, so I skipped it.`,
  no_access: (n) => `I couldn't download ${n}: Slack did not give me access to the file.`,
  download_failed: (n, d) =>
    `I couldn't download ${n}${d ? ` (${d})` : ''}. Please try uploading it again.`,
};

const RETRYABLE: ReadonlySet<AttachmentErrorCode> = new Set(['download_failed']);

export function isAttachmentErrorCode(code: unknown): code is AttachmentErrorCode {
  return typeof code === 'string' && Object.hasOwn(USER_MESSAGES, code);
}

/** The wire form of an AttachmentError: the base's, plus what rebuilds the user message. */
export interface AttachmentErrorWire extends ErrorWire<AttachmentErrorCode> {
  filename: string;
  detail: string;
}

const ATTACHMENT_MARKER = Symbol.for('threadmind.error.attachment');

/** A file the bot cannot take in; `userMessage` is what the person who posted it is told. */
export class AttachmentError extends ThreadmindError<AttachmentErrorCode> {
  readonly [ATTACHMENT_MARKER] = true;
  readonly filename: string;
  readonly detail: string;
  constructor(
    code: AttachmentErrorCode,
    filename: string,
    detail = '',
    options?: { cause?: unknown },
  ) {
    super(
      code,
      `${code}: ${filename}${detail ? ` (${detail})` : ''}`,
      USER_MESSAGES[code](filename, detail),
      { ...options, retryable: RETRYABLE.has(code) },
    );
    this.name = 'AttachmentError';
    this.filename = filename;
    this.detail = detail;
  }

  static override isInstance(err: unknown): err is AttachmentError {
    return (
      typeof err === 'object' &&
      err !== null &&
      (err as { [ATTACHMENT_MARKER]?: unknown })[ATTACHMENT_MARKER] === true
    );
  }

  /**
   * Rebuilds an AttachmentError from its wire form (`filename`, when given, wins over the wire's).
   * A wire that is not an AttachmentError's becomes 'corrupt' with the rebuilt error as its cause.
   */
  static override fromWire(wire: ErrorWire, filename?: string): AttachmentError {
    const w = wire as Partial<AttachmentErrorWire> & ErrorWire;
    const name = filename ?? (typeof w.filename === 'string' ? w.filename : 'this file');
    if (w.name !== 'AttachmentError' || !isAttachmentErrorCode(w.code))
      return new AttachmentError('corrupt', name, '', { cause: ThreadmindError.fromWire(wire) });
    const detail = typeof w.detail === 'string' ? w.detail : '';
    return new AttachmentError(w.code, name, detail, {
      ...(w.cause === undefined ? {} : { cause: new Error(w.cause) }),
    });
  }

  override toWire(): AttachmentErrorWire {
    return { ...super.toWire(), filename: this.filename, detail: this.detail };
  }
}

/** A stretch of a document's text with where it came from. */
export interface ExtractedSection {
  text: string;
  /** 1-based page (PDF). */
  page?: number;
  /** Nearest heading above (DOCX, Markdown). */
  heading?: string;
}

export interface ExtractedDocument {
  kind: 'pdf' | 'docx' | 'text';
  sections: ExtractedSection[];
  /** Total pages (PDF), even when only some were read. */
  pages?: number;
  /** Detected text encoding (text files). */
  encoding?: string;
  /** Set when limits stopped the reading early: what the user should be told. */
  partial?: string;
}

export interface ExtractLimits {
  timeoutMs: number;
  /** Heap limit of the extraction worker. */
  maxMemoryMb: number;
  maxPages: number;
  /** Stop collecting text past this many characters. */
  maxChars: number;
  /** Sum of uncompressed entry sizes allowed in a DOCX (zip bomb guard). */
  maxUnzippedBytes: number;
}

export interface ProcessedImage {
  data: Buffer;
  mime: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  /** Format of the upload as decoded (png, jpeg, gif, webp, …). */
  sourceFormat: string;
}

export interface ImageLimits {
  /** Refuse images whose header claims more pixels than this (decompression bombs). */
  maxInputPixels: number;
  /** Longest side after resizing. */
  maxSide: number;
  timeoutMs: number;
}

/** What the index knows about one file in one owner. */
export interface AttachmentRecord {
  fileId: string;
  filename: string;
  kind: AttachmentKind;
  mime: string;
  bytes: number;
  pages?: number;
  chunks: number;
  addedAt: number;
  owner: Owner;
  /** Where a person opens the file in the platform, when it told us. */
  link?: string;
  /** The embedder id its stored chunk vectors were made with; absent while it has none. */
  vectors?: string;
}

/** One passage of a search, exactly as `search_attachment` shows it to the model. */
export interface SearchHit {
  owner: Owner;
  fileId: string;
  filename: string;
  link?: string;
  page?: number;
  heading?: string;
  /**
   * The text the model receives: whole sentences around the best-matching ones (never cut
   * mid-sentence), or the whole document when it is small enough for the search's budget.
   */
  passage: string;
  /** True when `passage` is the whole document. */
  whole: boolean;
  /** Character offsets of the passage in the file's extracted text. */
  start: number;
  end: number;
  /** Rank score: the reranker's when it ranked, else reciprocal-rank fusion in hybrid mode, else BM25 or the cosine. */
  score: number;
  /** Its place in the word ranking (1-based), BM25 score and weighted share of query words found. */
  lexical?: { rank: number; score: number; coverage: number };
  /** Its place in the vector ranking (1-based) and cosine with the query. */
  vector?: { rank: number; cosine: number };
  /** Its place after reranking (1-based), the reranker's score (0–1), and its place before. */
  rerank?: { rank: number; score: number; before: number };
}
