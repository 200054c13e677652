// Latency samples for the benchmarks: one function, or two plans interleaved on the same inputs.
export const WARMUP = 30;

export async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Two plans on the same questions, interleaved (which goes first alternates), so load hits both alike. */
export async function timedPair(
  n: number,
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
): Promise<[number[], number[]]> {
  for (let i = 0; i < WARMUP; i++) {
    await a(i);
    await b(i);
  }
  const out: [number[], number[]] = [[], []];
  const one = async (fn: (i: number) => Promise<unknown>, i: number, into: number[]) => {
    const t = performance.now();
    await fn(i);
    into.push(performance.now() - t);
  };
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      await one(a, i, out[0]);
      await one(b, i, out[1]);
    } else {
      await one(b, i, out[1]);
      await one(a, i, out[0]);
    }
  }
  return out;
}
