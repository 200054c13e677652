// The doctor's checks at start-up: run in the background once the bot is up, one log line per
// check as it finishes, never a probe that costs model time unless doctor.onStart is `full`.
// Start-up does not wait for them; /readyz shows their names and statuses (pending until done).
import type { Config } from '../config/schema.ts';
import type { TextEndpoint } from '../llm/text-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import type { CheckResult, CheckStatus } from '../model/check-result.ts';
import type { Store } from '../store/store.ts';
import { settlesWithin } from '../util/deadline.ts';
import { configSecrets, doctorGroups } from './checks.ts';
import { SYMBOL } from './format.ts';
import { redactor } from './redact.ts';
import { runChecks } from './run-checks.ts';
import { once, plannedTextEndpoint } from './text-endpoint.ts';

export interface CheckState {
  name: string;
  status: CheckStatus | 'pending';
}

export interface StartupChecks {
  /** Every check's name with its status so far. */
  states(): CheckState[];
  /** Settles when every check has reported. */
  done: Promise<void>;
  /** Cancels checks still running and waits for them to end. */
  stop(): Promise<void>;
}

const LEVEL = { ok: 'info', skip: 'info', warn: 'warn', fail: 'error' } as const;

export function startStartupChecks(
  config: Config,
  deps: {
    log: Logger;
    store: Store;
    /** The text model start-up chose; without it, worked out as `npm run doctor` does. */
    textEndpoint?: TextEndpoint | undefined;
  },
): StartupChecks | undefined {
  if (config.doctor.onStart === 'off') return undefined;
  const log = deps.log.child({ component: 'doctor' });
  const { textEndpoint } = deps;
  const groups = doctorGroups(
    config,
    { open: async () => ({ store: deps.store, owned: false }) },
    textEndpoint ? async () => textEndpoint : once(() => plannedTextEndpoint(config)),
  );
  const names = groups.flatMap((g) => g.names);
  const seen = new Map<string, CheckResult>();
  const cancel = new AbortController();
  const done = runChecks(groups, {
    stepTimeoutMs: config.doctor.stepTimeoutMs,
    modelProbes: config.doctor.onStart === 'full',
    signal: cancel.signal,
    redact: redactor(configSecrets(config)),
    onResult: (r) => {
      seen.set(r.name, r);
      log[LEVEL[r.status]](
        { check: r.name, status: r.status, ...(r.fix ? { fix: r.fix } : {}) },
        `${SYMBOL[r.status]} ${r.name}: ${r.summary}`,
      );
    },
  }).then(
    () => undefined,
    (err: unknown) => log.error({ err }, 'start-up checks failed'),
  );
  return {
    states: () => names.map((name) => ({ name, status: seen.get(name)?.status ?? 'pending' })),
    done,
    async stop() {
      cancel.abort(new Error('shutting down'));
      // A check that ignores the signal is not worth delaying shutdown for.
      await settlesWithin(done, 1000);
    },
  };
}
