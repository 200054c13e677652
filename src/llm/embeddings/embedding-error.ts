// Why an embedding call failed, as a code retrieval can act on: every reason means "search by
// words this time", and none of them reaches the person in the thread (the answer still comes).
import { ThreadmindError } from '../../model/errors.ts';
import { asCodedError } from '../classify-error.ts';

export type EmbeddingReason =
  /** Down, refusing connections, 5xx, the model not served, or a key it does not accept. */
  | 'unavailable'
  /** No answer within the request's time. */
  | 'timeout'
  /** An answer that is not embeddings: not JSON, the wrong count, the wrong dimension, NaN. */
  | 'bad_response'
  /** A 4xx about the input itself (e.g. longer than the model reads). */
  | 'rejected'
  /** The caller's own signal fired (the turn ended). */
  | 'aborted';

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
  const coded = asCodedError(err);
  const reason: EmbeddingReason =
    coded.code === 'model_timeout'
      ? 'timeout'
      : coded.code === 'model_rejected' || coded.code === 'context_too_long'
        ? 'rejected'
        : 'unavailable';
  const detail = err instanceof Error ? err.message : String(err);
  return new EmbeddingError(reason, `${what}: ${detail}`, {
    cause: err,
    retryable: reason === 'unavailable' ? coded.retryable || coded.code === 'internal' : undefined,
  });
}
