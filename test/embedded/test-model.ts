// The real model the embedded tests run: SmolLM2-135M-Instruct (Q4_1 GGUF), fetched by
// .ci/fetch-test-model.sh and named by TEST_LOCAL_MODEL. CI always sets it; without it the tests
// fail with how to get it, never skip.
import { existsSync } from 'node:fs';

export function testModelPath(): string {
  const file = process.env.TEST_LOCAL_MODEL;
  if (!file || !existsSync(file)) {
    throw new Error(
      `${file ? `TEST_LOCAL_MODEL=${file} does not exist` : 'TEST_LOCAL_MODEL is not set'}: the embedded-model tests run a real ` +
        'GGUF model. Fetch it (about 98 MB, cached) and point the tests at it with:\n' +
        '  export TEST_LOCAL_MODEL="$(bash .ci/fetch-test-model.sh)"',
    );
  }
  return file;
}

/** llama.cpp threads spin: at most 2 in tests (2-core machine, shared), and a small context. */
export const TEST_THREADS = 2;
export const TEST_CONTEXT = 2048;
