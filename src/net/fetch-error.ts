// Why a guarded fetch did not return a page, with a code to classify by and words the model sees.

export type FetchErrorCode =
  | 'bad_url'
  | 'scheme'
  | 'credentials'
  | 'forbidden_address'
  | 'dns'
  | 'too_many_redirects'
  | 'too_large'
  | 'timeout'
  | 'http_status'
  | 'unreachable';

export class GuardedFetchError extends Error {
  readonly code: FetchErrorCode;
  constructor(code: FetchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardedFetchError';
    this.code = code;
  }

  static isInstance(err: unknown): err is GuardedFetchError {
    return err instanceof Error && err.name === 'GuardedFetchError' && 'code' in err;
  }
}
