// Messages between the main thread and an extraction worker.
import type { ExtractedDocument, ExtractLimits } from '../types.ts';
import type { DocumentKind } from './extract-in-thread.ts';
import type { FailureReport } from './failure.ts';

export interface ExtractRequest {
  id: number;
  bytes: Uint8Array;
  kind: DocumentKind;
  filename: string;
  limits: ExtractLimits;
}

export type ExtractReply =
  | { id: number; ok: true; doc: ExtractedDocument }
  | { id: number; ok: false; failure: FailureReport };
