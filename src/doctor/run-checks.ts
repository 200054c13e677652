// Runs check groups concurrently, each bounded in time, and returns every result in the groups'
// declared order whatever order they finished in. Results are redacted before anyone sees them.
import type { CheckGroup, CheckResult } from '../model/check-result.ts';
import { withDeadline } from '../util/deadline.ts';

export interface RunOptions {
  stepTimeoutMs: number;
  /** Run the probes that cost model time (tool call, image); otherwise they are reported as skipped. */
  modelProbes: boolean;
  /** Cancels every check (shutdown). */
  signal?: AbortSignal;
  /** Each result as soon as it is known (start-up logs them as they come). */
  onResult?: (result: CheckResult) => void;
  redact: (text: string) => string;
}

export const SKIPPED_PROBE =
  'not run: costs model time (npm run doctor, or DOCTOR_ON_START=full at start-up, runs it)';

export async function runChecks(
  groups: readonly CheckGroup[],
  o: RunOptions,
): Promise<CheckResult[]> {
  const results = new Map<string, CheckResult>();
  const publish = (r: CheckResult) => {
    const clean: CheckResult = {
      name: r.name,
      status: r.status,
      summary: o.redact(r.summary),
      ...(r.fix ? { fix: o.redact(r.fix) } : {}),
    };
    results.set(r.name, clean);
    o.onResult?.(clean);
  };

  await Promise.all(
    groups.map(async (group) => {
      if (group.costsModelTime && !o.modelProbes) {
        for (const name of group.names) publish({ name, status: 'skip', summary: SKIPPED_PROBE });
        return;
      }
      const mine = new Set(group.names);
      let open = true;
      const report = (r: CheckResult) => {
        if (open && mine.has(r.name) && !results.has(r.name)) publish(r);
      };
      // Every step has its own deadline; this one catches a check that ignores its signal.
      const budget = o.stepTimeoutMs * (group.names.length + 1);
      let failure = '';
      try {
        await withDeadline(
          (deadline) => {
            const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
            return group.run({ signal, stepTimeoutMs: o.stepTimeoutMs }, report);
          },
          budget,
          () => new Error(`no answer within ${Math.round(budget / 1000)} s`),
        );
      } catch (err) {
        failure = err instanceof Error ? err.message : String(err);
      }
      open = false;
      const missing = group.names.filter((n) => !results.has(n));
      for (const [i, name] of missing.entries()) {
        publish(
          i === 0
            ? {
                name,
                status: 'fail',
                summary: failure || 'the check ended without a result',
                fix: 'Check that the service is reachable from here; the other checks name what is configured.',
              }
            : { name, status: 'skip', summary: `not checked: ${missing[0]} did not finish` },
        );
      }
    }),
  );
  return groups.flatMap((g) => g.names).flatMap((n) => results.get(n) ?? []);
}
