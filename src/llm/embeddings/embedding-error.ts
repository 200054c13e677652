// Why an embedding call failed, as a code retrieval can act on: every reason means "search by
// words this time", and none of them reaches the person in the thread (the answer still comes).
import { ThreadmindError } from '../../model/errors.ts';
import { type SideModelReason, sideModelFailureOf } from '../side-error.ts';

export type EmbeddingReason = SideModelReason;

export type EmbeddingErrorCode = `embedding_${EmbeddingReason}`;

const RETRYABLE: Record<EmbeddingReason, boolean> = {
  unavailable: true,
  timeout: true,
  bad_response: false,
  rejected: false,
  aborted: false,
};

const USER_MESSAGE = 'Searching by meaning is unavailable right now; searching by words instead.';

export class EmbeddingError extends ThreadmindError<EmbeddingErrorCode> {
  readonly reason: EmbeddingReason;

  constructor(
    reason: EmbeddingReason,
    message: string,
    options?: { cause?: unknown; retryable?: boolean | undefined },
  ) {
    super(`embedding_${reason}`, message, USER_MESSAGE, {
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
      retryable: options?.retryable ?? RETRYABLE[reason],
    });
    this.name = 'EmbeddingError';
    this.reason = reason;
  }

  static isEmbeddingError(err: unknown): err is EmbeddingError {
    return ThreadmindError.isInstance(err) && err.code.startsWith('embedding_');
  }
}

/** Classifies a failed request (fetch's errors, an HTTP status) the way chat calls are. */
export function embeddingErrorOf(err: unknown, what: string): EmbeddingError {
  if (EmbeddingError.isEmbeddingError(err)) return err;
  const { reason, message, coded } = sideModelFailureOf(err, what);
  return new EmbeddingError(reason, message, {
    cause: err,
    retryable: reason === 'unavailable' ? coded.retryable || coded.code === 'internal' : undefined,
  });
}
