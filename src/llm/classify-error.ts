// Turns whatever a model call threw into a coded ThreadmindError, by what the error *is*: a
// ThreadmindError already, LangChain's error classes and `lc_error_code`, the OpenAI SDK's error
// classes, an HTTP status, an AbortSignal's reason, or a Node/undici system error code somewhere in
// the cause chain. Message text is read in exactly one place, isVllmContextLengthMessage, because
// for that case the server sends nothing else.
import { ContextOverflowError, ModelAbortError, ModelRefusalError } from '@langchain/core/errors';
import { OpenAIClient } from '@langchain/openai';
import { type ErrorCode, isErrorCode, ThreadmindError } from '../model/errors.ts';

const USER_MESSAGES = {
  context_too_long:
    'This thread has grown too long for the model to read at once. Start a new thread, or ask me to summarize this one.',
  rate_limited: 'The model is busy right now (rate limited). Please try again in a minute.',
  model_timeout: 'The model took too long to answer. Please try again, or ask a shorter question.',
  model_unavailable:
    "I can't reach the language model right now. Please try again in a few minutes; if it keeps happening, tell whoever runs threadmind.",
  model_rejected: 'The model refused this request. Please rephrase it or start a new thread.',
  internal: "Something went wrong while answering. The details are in the bot's log.",
} satisfies Partial<Record<ErrorCode, string>>;

type ModelCode = keyof typeof USER_MESSAGES;

/** A decision about one link of the cause chain; `retryable` overrides the code's default. */
interface Verdict {
  code: ModelCode;
  retryable?: boolean;
}

/**
 * vLLM answers a request that does not fit the model's window with a plain HTTP 400 whose body is
 * `{error: {message, type: 'BadRequestError', param: null, code: 400}}`: no error code of its own
 * (OpenAI's `context_length_exceeded` is not sent), so the wording is the only signal there is.
 * Every vLLM variant says "maximum context length is N tokens": the classic chat check ("However,
 * you requested …"), `_validate_input` ("However, your request has N input tokens"), and the
 * max_tokens check ("'max_tokens' or 'max_completion_tokens' is too large: …"). Only a 400 is
 * ever read this way.
 */
export function isVllmContextLengthMessage(message: string): boolean {
  return /\bmaximum context length is \d+ tokens\b/i.test(message);
}

/** Node and undici `code`s of a failed connection: the server is not there or went away. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Connected, but the answer did not come in time. */
const TOO_SLOW = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** LangChain's `lc_error_code` values (set on the provider's error it rethrows). */
const LC_ERROR_CODES: Record<string, Verdict> = {
  MODEL_RATE_LIMIT: { code: 'rate_limited' },
  // The server wants a key we do not have: nothing the person in the thread can fix.
  MODEL_AUTHENTICATION: { code: 'model_unavailable', retryable: false },
  MODEL_NOT_FOUND: { code: 'model_unavailable' },
  INVALID_TOOL_RESULTS: { code: 'model_rejected' },
  INVALID_PROMPT_INPUT: { code: 'model_rejected' },
  MESSAGE_COERCION_FAILURE: { code: 'internal' },
  OUTPUT_PARSING_FAILURE: { code: 'internal' },
};

function field(err: object, key: string): unknown {
  return (err as Record<string, unknown>)[key];
}

function byStatus(status: number, err: object): Verdict | undefined {
  if (status === 400) {
    if (field(err, 'code') === 'context_length_exceeded') return { code: 'context_too_long' };
    const message = field(err, 'message');
    if (typeof message === 'string' && isVllmContextLengthMessage(message))
      return { code: 'context_too_long' };
    return { code: 'model_rejected' };
  }
  if (status === 401 || status === 403) return { code: 'model_unavailable', retryable: false };
  if (status === 404) return { code: 'model_unavailable' };
  if (status === 408 || status === 504) return { code: 'model_timeout' };
  if (status === 429) return { code: 'rate_limited' };
  if (status >= 500) return { code: 'model_unavailable' };
  if (status >= 400) return { code: 'model_rejected' };
  return undefined;
}

/** What one link of the cause chain says, or undefined when it says nothing decisive. */
function judge(err: unknown): Verdict | ThreadmindError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if (ThreadmindError.isInstance(err)) {
    if (isErrorCode(err.code)) return err as ThreadmindError;
    // Another family's coded error (an AttachmentError from a tool): keep what it tells the user.
    return new ThreadmindError('internal', err.message, err.userMessage, {
      cause: err,
      retryable: err.retryable,
    });
  }
  // LangChain's own classes (branded: recognised across duplicate copies of @langchain/core).
  if (ContextOverflowError.isInstance(err)) return { code: 'context_too_long' };
  if (ModelAbortError.isInstance(err)) return { code: 'model_timeout' };
  if (ModelRefusalError.isInstance(err)) return { code: 'model_rejected' };
  const lcCode = field(err, 'lc_error_code');
  if (typeof lcCode === 'string' && LC_ERROR_CODES[lcCode]) return LC_ERROR_CODES[lcCode];
  // The OpenAI SDK's classes; the subclasses of APIError without a status come first.
  if (err instanceof OpenAIClient.APIUserAbortError) return { code: 'model_timeout' };
  if (err instanceof OpenAIClient.APIConnectionTimeoutError) return { code: 'model_timeout' };
  if (err instanceof OpenAIClient.APIConnectionError) {
    // Its cause (fetch's TypeError → undici's error) may say more, e.g. a headers timeout.
    const inner = judgeChain(field(err, 'cause'));
    return inner ?? { code: 'model_unavailable' };
  }
  if (err instanceof OpenAIClient.RateLimitError) return { code: 'rate_limited' };
  if (err instanceof OpenAIClient.InternalServerError) return { code: 'model_unavailable' };
  // Any HTTP error (the SDK's APIError and its subclasses, or another client's) by its status. An
  // error event inside a stream has no status; vLLM puts the status in the event's `code`.
  const status = field(err, 'status');
  if (typeof status === 'number') return byStatus(status, err);
  if (err instanceof OpenAIClient.APIError && typeof err.code === 'number')
    return byStatus(err.code, err);
  // AbortSignal reasons: AbortSignal.timeout() → DOMException 'TimeoutError' (LangChain also
  // rethrows the SDK's connection timeout under that name); abort() → 'AbortError'.
  const name = field(err, 'name');
  if (name === 'TimeoutError' || name === 'AbortError') return { code: 'model_timeout' };
  // Node and undici system errors.
  const code = field(err, 'code');
  if (typeof code === 'string') {
    if (UNREACHABLE.has(code)) return { code: 'model_unavailable' };
    if (TOO_SLOW.has(code)) return { code: 'model_timeout' };
  }
  return undefined;
}

/** The first decisive link, from the outermost error inwards through `cause` (and AggregateError). */
function judgeChain(err: unknown): Verdict | ThreadmindError | undefined {
  const seen = new Set<unknown>();
  const pending: unknown[] = [err];
  while (pending.length > 0 && seen.size < 16) {
    const link = pending.shift();
    if (typeof link !== 'object' || link === null || seen.has(link)) continue;
    seen.add(link);
    const verdict = judge(link);
    if (verdict) return verdict;
    if (link instanceof AggregateError) pending.push(...link.errors);
    pending.push(field(link, 'cause'));
  }
  return undefined;
}

function textOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return `${err.name}: ${err.message}${cause}`;
  }
  return String(err);
}

function coded(verdict: Verdict, err: unknown): ThreadmindError {
  const { code, retryable } = verdict;
  return new ThreadmindError(code, textOf(err), USER_MESSAGES[code], {
    cause: err,
    ...(retryable === undefined ? {} : { retryable }),
  });
}

/**
 * Turns whatever a model call threw into a coded error with a message fit for the thread.
 *
 * Pass the call's `signal` when there is one: once it has fired, its reason explains the failure
 * better than what the SDK threw (LangChain ends an aborted stream with a plain Error), so a
 * ThreadmindError reason (the turn's deadline) is returned as it is, and any other reason is
 * classified in its place.
 */
export function asCodedError(err: unknown, signal?: AbortSignal): ThreadmindError {
  if (signal?.aborted) {
    const verdict = judgeChain(signal.reason) ?? { code: 'model_timeout' };
    return ThreadmindError.isInstance(verdict) ? verdict : coded(verdict, err);
  }
  const verdict = judgeChain(err) ?? { code: 'internal' };
  return ThreadmindError.isInstance(verdict) ? verdict : coded(verdict, err);
}
