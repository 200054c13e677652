/** The `error` string of a Slack Web API platform error (`{ok:false, error}`), if that is what this is. */
export function slackErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const data = (err as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

const TRANSIENT = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/**
 * True when Slack says the method itself is not available to this app (not an AI app, missing
 * scope, older workspace): the caller should stop trying it and fall back.
 */
export function isUnavailable(err: unknown): boolean {
  const code = slackErrorCode(err);
  return code !== undefined && !TRANSIENT.has(code);
}
