// LLM_LOCAL_MODEL resolution: a path used as it is, a clear message for a missing file, and for a
// URI that cannot be downloaded because the model host is unreachable (offline).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { EmbeddedSetupError } from '../../src/llm/embedded/index.ts';
import { resolveLocalModel } from '../../src/llm/embedded/model-file.ts';
import { testModelPath } from './test-model.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'tm-model-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a .gguf path is used as it is', async () => {
  const file = testModelPath();
  const resolved = await resolveLocalModel({
    spec: file,
    modelsDir: path.join(dir, 'models'),
    progress: new PassThrough(),
  });
  assert.equal(resolved, file);
});

test('a path that does not exist is refused with what to give instead', async () => {
  await assert.rejects(
    resolveLocalModel({
      spec: path.join(dir, 'nope.gguf'),
      modelsDir: path.join(dir, 'models'),
      progress: new PassThrough(),
    }),
    (err: unknown) =>
      err instanceof EmbeddedSetupError &&
      /does not exist/.test(err.message) &&
      /hf:/.test(err.message),
  );
});

test('an hf: URI on a machine that cannot reach the model host says it is offline and what to do', async () => {
  const port = await closedPort();
  await assert.rejects(
    resolveLocalModel({
      spec: 'hf:someone/some-model-GGUF/some-model-q4_k_m.gguf',
      modelsDir: path.join(dir, 'models'),
      progress: new PassThrough(),
      endpoints: { huggingFace: `http://127.0.0.1:${port}/` },
    }),
    (err: unknown) =>
      err instanceof EmbeddedSetupError &&
      /offline/.test(err.message) &&
      /LLM_LOCAL_MODEL=/.test(err.message),
  );
});
