// Why a rerank call failed. Every reason means "keep the fused order this time": a reranker only
// refines what search already found, so none of them reaches the person in the thread.
import { ThreadmindError } from '../../model/errors.ts';
import { asCodedError } from '../classify-error.ts';

export type RerankReason =
  /** Down, refusing connections, 5xx, the model not served, or a key it does not accept. */
  | 'unavailable'
  /** No answer within the request's time. */
  | 'timeout'
  /** An answer that is not one score per document. */
  | 'bad_response'
  /** A 4xx about the input itself. */
  | 'rejected'
  /** The caller's own signal fired. */
  | 'aborted';

export type RerankErrorCode = `rerank_${RerankReason}`;

const USER_MESSAGE = 'Reranking is unavailable right now; search results keep their first order.';

export class RerankError extends ThreadmindError<RerankErrorCode> {
  readonly reason: RerankReason;

  constructor(reason: RerankReason, message: string, options?: { cause?: unknown }) {
    super(`rerank_${reason}`, message, USER_MESSAGE, {
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
      retryable: reason === 'unavailable' || reason === 'timeout',
    });
    this.name = 'RerankError';
    this.reason = reason;
  }

  static isRerankError(err: unknown): err is RerankError {
    return ThreadmindError.isInstance(err) && err.code.startsWith('rerank_');
  }
}

/** Classifies a failed request (fetch's errors, an HTTP status) the way chat calls are. */
export function rerankErrorOf(err: unknown, what: string): RerankError {
  if (RerankError.isRerankError(err)) return err;
  const coded = asCodedError(err);
  const reason: RerankReason =
    coded.code === 'model_timeout'
      ? 'timeout'
      : coded.code === 'model_rejected' || coded.code === 'context_too_long'
        ? 'rejected'
        : 'unavailable';
  const detail = err instanceof Error ? err.message : String(err);
  return new RerankError(reason, `${what}: ${detail}`, { cause: err });
}
