// Where embeddings come from, as the configuration decides it: nothing (search by words only), a
// server, or the embedded engine; and the settings that shape the requests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embedThreads } from '../../src/compose/create-embedder.ts';
import { embedEndpointOf } from '../../src/config/embed-settings.ts';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

test('with nothing set there is no embeddings endpoint, and the request settings have defaults', () => {
  const c = loadConfig({ env: {} });
  assert.deepEqual(embedEndpointOf(c.llm.embed), { kind: 'none' });
  assert.ok(c.llm.embed.batchSize > 0 && c.llm.embed.concurrency > 0 && c.llm.embed.timeoutMs > 0);
  // Only models trained with prefixes have them by default (BGE's English v1.5 query
  // instruction, E5's query/passage); bge-m3 and the default embedded model get none.
  assert.equal(c.llm.embed.prefixes['BAAI/bge-m3'], undefined);
  assert.match(c.llm.embed.prefixes['BAAI/bge-small-en-v1.5']?.query ?? '', /^Represent this/);
  assert.equal(c.llm.embed.prefixes['BAAI/bge-small-en-v1.5']?.document, undefined);
  assert.deepEqual(c.llm.embed.prefixes['intfloat/e5-small-v2'], {
    query: 'query: ',
    document: 'passage: ',
  });
});

test('LLM_EMBED_BASE_URL names a server or "embedded"; LLM_EMBED_MODEL the model either way', () => {
  const remote = loadConfig({
    env: { LLM_EMBED_BASE_URL: 'http://embed:8000/v1', LLM_EMBED_MODEL: 'BAAI/bge-m3' },
  });
  assert.deepEqual(embedEndpointOf(remote.llm.embed), {
    kind: 'remote',
    baseUrl: 'http://embed:8000/v1',
    model: 'BAAI/bge-m3',
  });
  const embedded = loadConfig({
    env: { LLM_EMBED_BASE_URL: 'embedded', LLM_EMBED_MODEL: '/models/e.gguf' },
  });
  assert.deepEqual(embedEndpointOf(embedded.llm.embed), {
    kind: 'embedded',
    model: '/models/e.gguf',
  });
  // The text model's setting is its own: embeddings do not follow it.
  const textOnly = loadConfig({ env: { LLM_TEXT_BASE_URL: 'embedded' } });
  assert.deepEqual(embedEndpointOf(textOnly.llm.embed), { kind: 'none' });
});

test('prefixes are set per model in a config file', () => {
  const c = loadConfig({
    env: { LLM_EMBED_BASE_URL: 'http://embed:8000/v1' },
    overrides: {
      llm: {
        embed: {
          prefixes: {
            'intfloat/multilingual-e5-small': { query: 'query: ', document: 'passage: ' },
          },
        },
      },
    },
  });
  assert.deepEqual(c.llm.embed.prefixes['intfloat/multilingual-e5-small'], {
    query: 'query: ',
    document: 'passage: ',
  });
});

test('a bad embeddings base URL or setting is refused with the variable named', () => {
  assert.throws(
    () =>
      loadConfig({
        env: { LLM_EMBED_BASE_URL: 'embeded' },
        overrides: { llm: { embed: { batchSize: 0, prefixes: { m: { querry: 'q: ' } } } } },
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.ok(err.problems.some((p) => /LLM_EMBED_BASE_URL/.test(p) && /embedded/.test(p)));
      assert.ok(err.problems.some((p) => /llm\.embed\.batchSize/.test(p)));
      assert.ok(err.problems.some((p) => /llm\.embed\.prefixes\.m/.test(p)));
      return true;
    },
  );
});

test('the embedded embedding model takes every core alone, half of them beside an embedded text model', () => {
  assert.equal(embedThreads(0, false, 8), 8);
  assert.equal(embedThreads(0, true, 8), 4);
  assert.equal(embedThreads(0, true, 1), 1);
  assert.equal(embedThreads(3, true, 8), 3);
  assert.equal(loadConfig({ env: {} }).llm.embed.threads, 0);
});
