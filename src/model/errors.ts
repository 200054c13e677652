// Coded errors in one place. `userMessage` is what the person in the thread sees; the error's own
// message and cause go to the log with the trace id. Code decides what happens to an error by its
// `code` (and `retryable`), never by its message text.
//
// Recognising one: `ThreadmindError.isInstance(err)` checks a marker stored under a registered
// symbol (the pattern of vercel/ai's AISDKError), so it holds across duplicate copies of this
// module. Nothing but plain data survives postMessage/structuredClone, so an error that crosses a
// worker_threads boundary travels as its wire form (`toWire()`) and is rebuilt with `fromWire()`.
//
// This module imports nothing: every layer may use it.

export type ErrorCode =
  | 'model_unavailable'
  | 'model_timeout'
  | 'model_rejected'
  | 'context_too_long'
  | 'rate_limited'
  | 'turn_timeout'
  | 'queue_full'
  | 'platform_error'
  | 'internal'
  /** The store-backed session lock could not be renewed: another replica may now own the thread. */
  | 'lock_lost'
  /** Another replica holds the thread's session lock and did not let go in time. */
  | 'session_busy';

/** Whether trying the same thing again later may succeed, per code. */
const RETRYABLE: Record<ErrorCode, boolean> = {
  model_unavailable: true,
  model_timeout: true,
  model_rejected: false,
  context_too_long: false,
  rate_limited: true,
  turn_timeout: false,
  queue_full: true,
  platform_error: true,
  internal: false,
  lock_lost: true,
  session_busy: true,
};

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(RETRYABLE, code);
}

/** The default `retryable` of a code (false for codes this table does not know). */
export function isRetryableCode(code: string): boolean {
  return isErrorCode(code) ? RETRYABLE[code] : false;
}

/** The plain form of a coded error: survives structuredClone and postMessage. */
export interface ErrorWire<C extends string = string> {
  name: string;
  code: C;
  message: string;
  userMessage: string;
  retryable: boolean;
  /** `name: message` of the cause, for the log only (the cause object itself cannot cross). */
  cause?: string;
}

export interface ThreadmindErrorOptions {
  cause?: unknown;
  /** Defaults from the code (see RETRYABLE). */
  retryable?: boolean;
}

const MARKER = Symbol.for('threadmind.error');

function causeText(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return String(cause);
}

/**
 * The base of every coded error. `C` is the code vocabulary: `ErrorCode` for the bot's own errors;
 * a subclass (AttachmentError) brings its own. `code` is not inferred from the argument, so
 * `new ThreadmindError('no_such_code', …)` does not compile.
 */
export class ThreadmindError<C extends string = ErrorCode> extends Error {
  readonly [MARKER] = true;
  readonly code: C;
  readonly userMessage: string;
  readonly retryable: boolean;

  constructor(
    code: NoInfer<C>,
    message: string,
    userMessage: string,
    options?: ThreadmindErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ThreadmindError';
    this.code = code;
    this.userMessage = userMessage;
    this.retryable = options?.retryable ?? isRetryableCode(code);
  }

  /** True for any ThreadmindError or subclass, from any copy of this module. */
  static isInstance(err: unknown): err is ThreadmindError<string> {
    return (
      typeof err === 'object' && err !== null && (err as { [MARKER]?: unknown })[MARKER] === true
    );
  }

  /** True when `value` has the shape `toWire()` produces (e.g. after a postMessage). */
  static isWire(value: unknown): value is ErrorWire {
    if (typeof value !== 'object' || value === null) return false;
    const w = value as Record<string, unknown>;
    return (
      typeof w.name === 'string' &&
      typeof w.code === 'string' &&
      typeof w.message === 'string' &&
      typeof w.userMessage === 'string' &&
      typeof w.retryable === 'boolean' &&
      (w.cause === undefined || typeof w.cause === 'string')
    );
  }

  /** Rebuilds an error from its wire form; its `name` is kept, the cause becomes an Error. */
  static fromWire(wire: ErrorWire): ThreadmindError<string> {
    const err = new ThreadmindError<string>(wire.code, wire.message, wire.userMessage, {
      retryable: wire.retryable,
      ...(wire.cause === undefined ? {} : { cause: new Error(wire.cause) }),
    });
    err.name = wire.name;
    return err;
  }

  toWire(): ErrorWire<C> {
    const cause = causeText(this.cause);
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      userMessage: this.userMessage,
      retryable: this.retryable,
      ...(cause === undefined ? {} : { cause }),
    };
  }
}
