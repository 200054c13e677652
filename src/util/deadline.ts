// The one place that bounds how long we wait for a promise. The timer is always cleared once the
// race is decided, so a settled wait leaves nothing behind on the event loop.

/** Work to bound: a promise already running, or a function that starts it and honours `signal`. */
export type Bounded<T> = Promise<T> | ((signal: AbortSignal) => Promise<T>);

/**
 * Settles like `work`, unless `ms` pass first: then rejects with `onTimeout()`. When `work` is a
 * function it gets a signal that is aborted (with the same error) at the deadline, so it can stop.
 * The losing side may still settle later; its rejection is not reported as unhandled. A `ms` that
 * is not finite means no deadline.
 */
export async function withDeadline<T>(
  work: Bounded<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  const controller = typeof work === 'function' ? new AbortController() : undefined;
  const running = typeof work === 'function' ? work((controller as AbortController).signal) : work;
  if (!Number.isFinite(ms)) return running;
  running.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        const err = onTimeout();
        controller?.abort(err);
        reject(err);
      },
      Math.max(0, ms),
    );
  });
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits until `work` settles (fulfilled or rejected alike) or `ms` pass, whichever comes first.
 * True when it settled in time. Never rejects.
 */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = work.then(
    () => true,
    () => true,
  );
  return withDeadline(settled, ms, () => new Error('deadline')).catch(() => false);
}
