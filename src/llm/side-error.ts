// Why a call to a side model (embeddings, a reranker) failed. Every reason means "search without
// it this time"; none of them reaches the person in the thread (the answer still comes).
import type { ThreadmindError } from '../model/errors.ts';
import { asCodedError } from './classify-error.ts';

export type SideModelReason =
  /** Down, refusing connections, 5xx, the model not served, or a key it does not accept. */
  | 'unavailable'
  /** No answer within the request's time. */
  | 'timeout'
  /** An answer of the wrong shape: not JSON, the wrong count or dimension, NaN. */
  | 'bad_response'
  /** A 4xx about the input itself (e.g. longer than the model reads). */
  | 'rejected'
  /** The caller's own signal fired (the turn ended). */
  | 'aborted';

export interface SideModelFailure {
  reason: 'unavailable' | 'timeout' | 'rejected';
  /** `<what>: <the error's message>`. */
  message: string;
  /** The failure as chat calls classify it (its code and retryability). */
  coded: ThreadmindError;
}

/** Classifies a failed request (fetch's errors, an HTTP status) the way chat calls are. */
export function sideModelFailureOf(err: unknown, what: string): SideModelFailure {
  const coded = asCodedError(err);
  const reason =
    coded.code === 'model_timeout'
      ? 'timeout'
      : coded.code === 'model_rejected' || coded.code === 'context_too_long'
        ? 'rejected'
        : 'unavailable';
  const detail = err instanceof Error ? err.message : String(err);
  return { reason, message: `${what}: ${detail}`, coded };
}
