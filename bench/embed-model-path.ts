// The CI embedding model for benchmarks, when BENCH_EMBED_MODEL or TEST_EMBED_MODEL names its GGUF.
export function benchEmbedModelPath(): string | undefined {
  return process.env.BENCH_EMBED_MODEL || process.env.TEST_EMBED_MODEL || undefined;
}
