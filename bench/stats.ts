export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? Number.NaN;
}

export function summary(values: number[]): {
  n: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
} {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

export function fmt(ms: number): string {
  return `${ms.toFixed(1)} ms`;
}
