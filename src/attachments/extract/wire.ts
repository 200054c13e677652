// Messages between the main thread and an extraction worker.
import type { AttachmentErrorWire, ExtractedDocument, ExtractLimits } from '../types.ts';
import type { DocumentKind } from './extract-in-thread.ts';

export interface ExtractRequest {
  id: number;
  bytes: Uint8Array;
  kind: DocumentKind;
  filename: string;
  limits: ExtractLimits;
}

export type ExtractReply =
  | { id: number; ok: true; doc: ExtractedDocument }
  /** A failure travels as AttachmentError.toWire() and is rebuilt with AttachmentError.fromWire. */
  | { id: number; ok: false; error: AttachmentErrorWire };
