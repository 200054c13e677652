// Why an extraction failed. Inside the worker, parsers throw ExtractFailure (a code and a detail;
// they do not know the filename); the worker turns whatever was thrown into an AttachmentError and
// posts its wire form, which the pool rebuilds on the main thread (AttachmentError.fromWire).
import { AttachmentError, type AttachmentErrorCode } from '../types.ts';

export class ExtractFailure extends Error {
  readonly code: AttachmentErrorCode;
  readonly detail: string;
  constructor(code: AttachmentErrorCode, detail = '', options?: { cause?: unknown }) {
    super(`${code}${detail ? `: ${detail}` : ''}`, options);
    this.name = 'ExtractFailure';
    this.code = code;
    this.detail = detail;
  }
}

const NEEDS_MEMORY = 'it needs more memory than allowed';

/** What the person who posted `filename` is told about `err`, thrown while reading it. */
export function asAttachmentError(err: unknown, filename: string): AttachmentError {
  if (AttachmentError.isInstance(err)) return err;
  if (err instanceof ExtractFailure) {
    const cause = err.cause;
    return new AttachmentError(
      err.code,
      filename,
      err.detail,
      cause === undefined ? {} : { cause },
    );
  }
  // "Invalid string length" / "Array buffer allocation failed": the file is too big to hold.
  if (err instanceof RangeError) return outOfMemory(filename, err);
  // Anything else a parser throws means it could not make sense of the bytes.
  return new AttachmentError('corrupt', filename, '', { cause: err });
}

export function outOfMemory(filename: string, cause?: unknown): AttachmentError {
  return new AttachmentError('too_complex', filename, NEEDS_MEMORY, { cause });
}
