// Where the text model comes from, as the configuration decides it, and the embedded model's
// settings. The embedded engine itself is tested with a real model in test/embedded/.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { threadsFor } from '../../src/llm/embedded/index.ts';
import { answersAt } from '../../src/llm/embedded/probe.ts';

test('with nothing configured the default address is probed; "embedded" and a URL are taken as said', () => {
  const unset = loadConfig({ env: {} });
  assert.equal(unset.textModel, 'probe');
  assert.equal(unset.visionConfigured, false);
  assert.equal(unset.llm.local.threads, 0);
  assert.equal(unset.llm.local.contextSize, 8192);

  const embedded = loadConfig({
    env: {
      LLM_TEXT_BASE_URL: 'embedded',
      LLM_LOCAL_MODEL: '/models/x.gguf',
      LLM_LOCAL_THREADS: '2',
      LLM_LOCAL_CONTEXT: '4096',
      LLM_LOCAL_PORT: '8090',
      HF_ENDPOINT: 'https://mirror.internal/',
    },
  });
  assert.equal(embedded.textModel, 'embedded');
  assert.deepEqual(
    { ...embedded.llm.local, probeTimeoutMs: 0 },
    {
      model: '/models/x.gguf',
      threads: 2,
      contextSize: 4096,
      port: 8090,
      probeTimeoutMs: 0,
      downloadEndpoint: 'https://mirror.internal/',
    },
  );

  // The default address written out is still a choice: no probing, no embedded fallback.
  const remote = loadConfig({
    env: { LLM_TEXT_BASE_URL: 'http://localhost:8000/v1', LLM_VISION_BASE_URL: 'http://v:1/v1' },
  });
  assert.equal(remote.textModel, 'remote');
  assert.equal(remote.visionConfigured, true);
  const fromFile = loadConfig({
    env: {},
    overrides: { llm: { text: { baseUrl: 'http://gpu:8000/v1' } } },
  });
  assert.equal(fromFile.textModel, 'remote');
});

test('a text base URL that is neither a URL nor "embedded" is refused with the variable named', () => {
  assert.throws(
    () => loadConfig({ env: { LLM_TEXT_BASE_URL: 'embeded', LLM_LOCAL_THREADS: 'two' } }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.problems.some((p) => /LLM_TEXT_BASE_URL/.test(p) && /embedded/.test(p)) &&
      err.problems.some((p) => /LLM_LOCAL_THREADS must be a whole number/.test(p)),
  );
});

test('threads default to the cores and never exceed them', () => {
  assert.equal(threadsFor(0, 8), 8);
  assert.equal(threadsFor(4, 8), 4);
  assert.equal(threadsFor(16, 8), 8);
});

test('the probe sees a server that answers (whatever its status) and nothing where none listens', async () => {
  const server = createServer((_req, res) => res.writeHead(401).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  assert.equal(await answersAt(`http://127.0.0.1:${port}/v1`, 2000), true);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.equal(await answersAt(`http://127.0.0.1:${port}/v1`, 2000), false);
});
