// Why an extraction failed, in a shape that survives postMessage: the worker knows the code and
// detail, the main thread knows the filename and builds the user-facing AttachmentError.
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

/** What crosses the thread boundary when extraction fails. */
export interface FailureReport {
  code: AttachmentErrorCode;
  detail: string;
  /** The underlying error, for the log only. */
  cause?: string;
}

const NEEDS_MEMORY = 'it needs more memory than allowed';

export function reportOf(err: unknown): FailureReport {
  if (err instanceof ExtractFailure) {
    const cause =
      err.cause instanceof Error ? `${err.cause.name}: ${err.cause.message}` : undefined;
    return cause
      ? { code: err.code, detail: err.detail, cause }
      : { code: err.code, detail: err.detail };
  }
  const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  // "Invalid string length" / "Array buffer allocation failed": the file is too big to hold.
  if (err instanceof RangeError) return { code: 'too_complex', detail: NEEDS_MEMORY, cause };
  // Anything else a parser throws means it could not make sense of the bytes.
  return { code: 'corrupt', detail: '', cause };
}

export function toAttachmentError(report: FailureReport, filename: string): AttachmentError {
  const options = report.cause === undefined ? undefined : { cause: new Error(report.cause) };
  return new AttachmentError(report.code, filename, report.detail, options);
}

export function outOfMemory(filename: string, cause?: unknown): AttachmentError {
  return new AttachmentError('too_complex', filename, NEEDS_MEMORY, { cause });
}
