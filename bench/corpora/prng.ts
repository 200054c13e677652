// A seeded PRNG (mulberry32) so every corpus is the same on every machine and every run.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
  };
}

/**
 * Lengths spread from a sentence or two to a few thousand characters: half short (chat messages),
 * half long (documents, pasted files), the mix a thread actually has.
 */
export function lengthPlan(r: Rng, samples: number, maxUnits: number): number[] {
  const plan: number[] = [];
  for (let i = 0; i < samples; i++) {
    const u = r.next();
    plan.push(Math.max(1, Math.round(u * u * maxUnits)));
  }
  return plan;
}
