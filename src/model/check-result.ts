// The vocabulary of `npm run doctor` and the start-up checks: one named result per thing that can
// be misconfigured, and the group of checks that produces results. Adapters define their
// platform's groups; src/doctor runs them; /readyz reports their names and statuses.
//
// This module imports nothing: every layer may use it.

/** ✓, ⚠, ✗, or not run (a check it depends on failed, or it costs model time at start-up). */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable dotted name, e.g. `slack.scopes`; /readyz reports the same names. */
  name: string;
  status: CheckStatus;
  /** One line: what was found. */
  summary: string;
  /** What to do about it; absent when nothing is to be done. */
  fix?: string;
}

export interface CheckContext {
  /** Aborted when the run is cancelled (shutdown) or the group's time is up. */
  signal: AbortSignal;
  /** Each step (one request, one query) gets at most this long. */
  stepTimeoutMs: number;
}

/** Checks that share their set-up (one token, one connection) and so run one after another. */
export interface CheckGroup {
  /** The names it reports, in output order. */
  names: readonly string[];
  /** A probe that costs model time (a generation): left out at start-up unless asked for. */
  costsModelTime?: boolean;
  /** Reports each result as soon as it is known; a name never reported counts as not answered. */
  run(ctx: CheckContext, report: (result: CheckResult) => void): Promise<void>;
}

/** A signal for one step of a check: the run's signal or the step's own deadline, whichever first. */
export function stepSignal(ctx: CheckContext): AbortSignal {
  return AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.stepTimeoutMs)]);
}

/** A short reason from anything thrown, for a check's summary. */
export function reasonOf(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError') return 'no answer in time';
    const cause = (err as { cause?: unknown }).cause;
    const code = (cause as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string') return `${err.message} (${code})`;
    return err.message;
  }
  return String(err);
}
