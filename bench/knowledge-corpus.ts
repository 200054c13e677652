// The knowledge benchmark's synthetic corpus: words (common, filler and rare terms) and random unit
// vectors of all-MiniLM-L6-v2's size clustered around 200 topics. Seeded, so every run draws the same.
import { mulberry32 } from '../test/support/prng.ts';

export const DIMS = 384;
const TOPICS = 200;

const rand = mulberry32(7);
export const COMMON = (
  'order payment timeout service deploy release incident review latency budget cluster ' +
  'database migration backup network security policy contract vendor invoice quarter report ' +
  'customer support ticket roadmap feature pipeline container schedule approval audit'
).split(' ');
const FILLER = 'the a of to and in for on with that is was by as at from this be are'.split(' ');
export const RARE = Array.from({ length: 5000 }, (_, i) => `term${i.toString(36)}`);
export const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
export const word = () =>
  rand() < 0.35
    ? pick(FILLER)
    : rand() < 0.7
      ? pick(COMMON)
      : (RARE[Math.floor(RARE.length * rand() ** 3)] as string);
export const sentence = () => Array.from({ length: 10 + Math.floor(rand() * 10) }, word).join(' ');

function gaussian(): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}
function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / n;
  return v;
}
const CENTROIDS = Array.from({ length: TOPICS }, () =>
  unit(Float32Array.from({ length: DIMS }, gaussian)),
);
/** A unit vector near a random topic: cosine ≈ 0.7 to its centroid, ≈ 0.5 to its neighbours. */
export function nearTopic(): Float32Array {
  const c = pick(CENTROIDS);
  const s = 1 / Math.sqrt(DIMS);
  return unit(Float32Array.from({ length: DIMS }, (_, i) => (c[i] as number) + s * gaussian()));
}
export function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += (a[i] as number) * (b[i] as number);
  return d;
}
