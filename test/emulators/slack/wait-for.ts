// Polling for eventually-true conditions on emulator state, failing with a picture of that state.

const POLL_MS = 10;

/**
 * Resolves with the probe's first truthy result. A probe that throws counts as "not yet" (so it
 * may assert); its last error and `describe()` go into the timeout message.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false,
  timeoutMs: number,
  describe: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = probe();
      if (value !== undefined && value !== false && value !== null) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const cause = lastError === undefined ? '' : `\nlast probe error: ${errorText(lastError)}`;
  throw new Error(`waitFor: condition not met within ${timeoutMs} ms${cause}\n${describe()}`);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Short one-line-per-item rendering for failure messages. */
export function clip(s: string, max = 120): string {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
