// Document text extraction (PDF, DOCX, text) in worker threads, within ExtractLimits.
import type { ExtractedDocument, ExtractLimits } from '../types.ts';
import { ExtractPool } from './worker-pool.ts';

export type { DecodedText } from './decode-text.ts';
export { decodeText } from './decode-text.ts';
export { ExtractPool } from './worker-pool.ts';

let shared: ExtractPool | undefined;

/**
 * Extracts the text of a document in a worker thread. Throws AttachmentError (encrypted, corrupt,
 * empty, no_text_layer, too_complex, timed_out, unsupported_type).
 *
 * The bytes are transferred to the worker when `bytes` spans its whole ArrayBuffer: the caller's
 * buffer is detached afterwards (byteLength 0). Views into larger or pooled buffers are copied.
 */
export function extractDocument(
  bytes: Uint8Array,
  kind: 'pdf' | 'docx' | 'text',
  filename: string,
  limits: ExtractLimits,
): Promise<ExtractedDocument> {
  shared ??= new ExtractPool();
  return shared.run(bytes, kind, filename, limits);
}

/** Stops the shared extraction workers (shutdown, tests). The next extraction starts new ones. */
export async function closeExtractWorkers(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
