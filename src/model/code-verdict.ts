// A doctor check judged by the error code an API answers with: accepted, or refused with the fix
// for that code (else a general one). The platform names the codes and words the fixes; the shape
// of the verdict is the same for every credential checked this way.
import type { CheckResult } from './check-result.ts';

export interface CodeVerdict {
  name: string;
  /** Whether the answer means ✓; given the error code ('' when none) and the answer's body. */
  accepted(code: string, body: Record<string, unknown>): boolean;
  /** What was found when accepted. */
  ok(body: Record<string, unknown>): string;
  /** What refused what ("Slack refused the bot token"); the code follows it. */
  refused: string;
  /** A fix per error code… */
  fixes?: Readonly<Record<string, string>>;
  /** …else this one. */
  fix: string;
}

/** The result for an answer whose error code is `code` ('' when it names none). */
export function judgeByCode(
  v: CodeVerdict,
  code: string,
  body: Record<string, unknown>,
): CheckResult {
  if (v.accepted(code, body)) return { name: v.name, status: 'ok', summary: v.ok(body) };
  return {
    name: v.name,
    status: 'fail',
    summary: `${v.refused}: ${code || 'unknown error'}`,
    fix: v.fixes?.[code] ?? v.fix,
  };
}

/** Whether `url` is an https address (plain http on loopback) whose path is exactly `path`. */
export function isCallbackUrl(url: string, path: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  return (parsed.protocol === 'https:' || loopback) && parsed.pathname === path;
}
