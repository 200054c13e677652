// Coded errors in one place. `userMessage` is what the person in the thread sees; the error's own
// message and cause go to the log with the trace id.

export type ErrorCode =
  | 'model_unavailable'
  | 'model_timeout'
  | 'model_rejected'
  | 'context_too_long'
  | 'rate_limited'
  | 'turn_timeout'
  | 'queue_full'
  | 'platform_error'
  | 'internal';

export class ThreadmindError extends Error {
  readonly code: ErrorCode;
  readonly userMessage: string;
  constructor(
    code: ErrorCode,
    message: string,
    userMessage: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ThreadmindError';
    this.code = code;
    this.userMessage = userMessage;
  }
}

function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

function textOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return `${err.name}: ${err.message}${cause}`;
  }
  return String(err);
}

const CONNECTION =
  /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|socket hang up|Connection error|fetch failed|terminated|other side closed/i;
const CONTEXT = /maximum context length|context length|too many tokens|prompt is too long/i;

/** Turns whatever a model call threw into a coded error with a message fit for the thread. */
export function asCodedError(err: unknown): ThreadmindError {
  if (err instanceof ThreadmindError) return err;
  const text = textOf(err);
  const status = statusOf(err);
  // LangChain may rethrow the server's 400 as its own ContextOverflowError without the status.
  if ((status === 400 || status === undefined) && CONTEXT.test(text)) {
    return new ThreadmindError(
      'context_too_long',
      text,
      'This thread has grown too long for the model to read at once. Start a new thread, or ask me to summarize this one.',
      { cause: err },
    );
  }
  if (status === 429) {
    return new ThreadmindError(
      'rate_limited',
      text,
      'The model is busy right now (rate limited). Please try again in a minute.',
      { cause: err },
    );
  }
  if (/timed? ?out|TimeoutError|AbortError|aborted/i.test(text)) {
    return new ThreadmindError(
      'model_timeout',
      text,
      'The model took too long to answer. Please try again, or ask a shorter question.',
      { cause: err },
    );
  }
  if ((status !== undefined && status >= 500) || CONNECTION.test(text)) {
    return new ThreadmindError(
      'model_unavailable',
      text,
      "I can't reach the language model right now. Please try again in a few minutes; if it keeps happening, tell whoever runs threadmind.",
      { cause: err },
    );
  }
  if (status !== undefined && status >= 400) {
    return new ThreadmindError(
      'model_rejected',
      text,
      'The model refused this request. Please rephrase it or start a new thread.',
      { cause: err },
    );
  }
  return new ThreadmindError(
    'internal',
    text,
    "Something went wrong while answering. The details are in the bot's log.",
    { cause: err },
  );
}
