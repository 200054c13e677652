// A platform's doctor checks as data: the HTTP calls each check makes and how it judges their
// answers. The adapter knows its platform's endpoints, error codes and fixes; src/doctor
// (platform-checks.ts) sends the calls within the step's time, turns a call that fails into the
// platform's "cannot reach" or "refused" result, and skips a check whose prerequisite did not pass.
import type { CheckResult } from './check-result.ts';

/** One HTTP call of a check: a GET, or a form posted. Its answer must be JSON. */
export interface ProbeCall {
  url: string;
  /** How a failure names the call: `auth.test`, `GET /users/@me`. */
  label: string;
  headers?: Readonly<Record<string, string>>;
  /** Posted as application/x-www-form-urlencoded; absent: a GET. */
  form?: Readonly<Record<string, string>>;
}

export interface ProbeAnswer {
  body: Record<string, unknown>;
  header(name: string): string | null;
}

export interface PlatformCheck {
  name: string;
  /** The check this one means nothing without: when that one is not ✓, this one is not checked. */
  needs?: string;
  /** Its calls, by name, sent in order. */
  calls?: Readonly<Record<string, ProbeCall>>;
  /** `answer(call)`: the answer to one of its calls, or of a check before it in the group. */
  judge(answer: (call: string) => ProbeAnswer): CheckResult;
}

/** Checks that share one credential, run one after another. */
export interface PlatformChecks {
  /** Names the platform in a failed call: "Slack answered HTTP 500 to auth.test". */
  platform: string;
  /** Where its API is ("Slack's Web API at …") and how to make it reachable. */
  api: { what: string; fix: string };
  /** HTTP statuses that mean the credential was refused (Discord's 401), and what to do. */
  refused?: Readonly<Record<number, { summary: string; fix: string }>>;
  checks: readonly PlatformCheck[];
}
