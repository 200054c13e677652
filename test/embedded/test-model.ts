// The real models the embedded tests run, each named by an environment variable or else fetched
// once by its .ci script into the cache (as the tests start their own Redis when none is given):
// SmolLM2-135M-Instruct (Q4_1 GGUF, TEST_LOCAL_MODEL) for chat, all-MiniLM-L6-v2 converted to GGUF
// (q8_0, or f16 to compare, TEST_EMBED_MODEL) for embeddings. Without one the tests fail with how to get it, never skip.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

interface TestModel {
  env: 'TEST_LOCAL_MODEL' | 'TEST_EMBED_MODEL';
  script: string;
  /** "the embedded-model tests run a real GGUF model" and what fetching it costs. */
  needs: string;
  size: string;
}

function fetchedModel(m: TestModel): string {
  const named = process.env[m.env];
  if (named && existsSync(named)) return named;
  if (!named) {
    try {
      const script = new URL(`../../.ci/${m.script}`, import.meta.url).pathname;
      const fetched = execFileSync('bash', [script], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 10 * 60_000,
      }).trim();
      if (fetched && existsSync(fetched)) {
        process.env[m.env] = fetched;
        return fetched;
      }
    } catch {
      // Reported below with the way to fetch it by hand.
    }
  }
  throw new Error(
    `${named ? `${m.env}=${named} does not exist` : 'the test model could not be fetched'}: ${m.needs}. ` +
      `Fetch it (${m.size}, cached; needs python3 -m pip) and point the tests at it with:\n` +
      `  export ${m.env}="$(bash .ci/${m.script})"`,
  );
}

export function testModelPath(): string {
  return fetchedModel({
    env: 'TEST_LOCAL_MODEL',
    script: 'fetch-test-model.sh',
    needs: 'the embedded-model tests run a real GGUF model',
    size: 'about 98 MB',
  });
}

export function testEmbedModelPath(): string {
  return fetchedModel({
    env: 'TEST_EMBED_MODEL',
    script: 'fetch-embed-model.sh',
    needs: 'the embedding tests run a real GGUF model',
    size: 'about 25 MB, converted once',
  });
}

/** llama.cpp threads spin: at most 2 in tests (2-core machine, shared), and a small context. */
export const TEST_THREADS = 2;
export const TEST_CONTEXT = 2048;
export const TEST_EMBED_THREADS = 2;
