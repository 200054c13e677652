/**
 * Whether a model server answers at `baseUrl` (GET /models) within `timeoutMs`. Any HTTP answer
 * counts, even an error status: something is serving there, and the bot reports what it says.
 */
export async function answersAt(
  baseUrl: string,
  timeoutMs: number,
  doFetch: typeof fetch = fetch,
): Promise<boolean> {
  try {
    const res = await doFetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
