// Why a rerank call failed. Every reason means "keep the fused order this time": a reranker only
// refines what search already found, so none of them reaches the person in the thread.
import { ThreadmindError } from '../../model/errors.ts';
import { type SideModelReason, sideModelFailureOf } from '../side-error.ts';

export type RerankReason = SideModelReason;

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
  const { reason, message } = sideModelFailureOf(err, what);
  return new RerankError(reason, message, { cause: err });
}
