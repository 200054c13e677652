// Runs a platform's checks (src/model/platform-checks.ts, defined by each adapter) as one check
// group: each check's calls are sent in order within the step's time, a failed call becomes the
// platform's "refused" or "cannot reach" result, and a check whose prerequisite did not pass is
// reported as not checked.
import {
  type CheckContext,
  type CheckGroup,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';
import type { PlatformChecks, ProbeAnswer, ProbeCall } from '../model/platform-checks.ts';

class HttpStatusError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function send(platform: string, call: ProbeCall, ctx: CheckContext): Promise<ProbeAnswer> {
  const res = await fetch(call.url, {
    method: call.form ? 'POST' : 'GET',
    headers: {
      ...call.headers,
      ...(call.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(call.form ? { body: new URLSearchParams(call.form).toString() } : {}),
    signal: stepSignal(ctx),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new HttpStatusError(
      res.status,
      `${platform} answered HTTP ${res.status} to ${call.label}`,
    );
  }
  return {
    body: (await res.json()) as Record<string, unknown>,
    header: (name) => res.headers.get(name),
  };
}

function failedCall(p: PlatformChecks, name: string, err: unknown): CheckResult {
  const refused = err instanceof HttpStatusError ? p.refused?.[err.status] : undefined;
  if (refused) return { name, status: 'fail', ...refused };
  return {
    name,
    status: 'fail',
    summary: `cannot reach ${p.api.what}: ${reasonOf(err)}`,
    fix: p.api.fix,
  };
}

/** The platform's checks as one group, reported in their order. */
export function platformCheckGroup(p: PlatformChecks): CheckGroup {
  return {
    names: p.checks.map((c) => c.name),
    async run(ctx, report) {
      const answers = new Map<string, ProbeAnswer>();
      const answer = (call: string): ProbeAnswer => {
        const found = answers.get(call);
        if (!found) throw new Error(`no answer to ${call}`);
        return found;
      };
      const passed = new Set<string>();
      for (const check of p.checks) {
        if (check.needs !== undefined && !passed.has(check.needs)) {
          report({
            name: check.name,
            status: 'skip',
            summary: `not checked: ${check.needs} failed`,
          });
          continue;
        }
        let result: CheckResult;
        try {
          for (const [key, call] of Object.entries(check.calls ?? {}))
            answers.set(key, await send(p.platform, call, ctx));
          result = check.judge(answer);
        } catch (err) {
          result = failedCall(p, check.name, err);
        }
        if (result.status === 'ok') passed.add(check.name);
        report(result);
      }
    },
  };
}
