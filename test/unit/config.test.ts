import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  assert.fail('expected a ConfigError');
}

test('defaults come from config/default.yaml and need no platform', () => {
  const c = loadConfig({ env: {} });
  assert.equal(c.server.port, 3000);
  assert.equal(c.llm.text.baseUrl, 'http://localhost:8000/v1');
  assert.equal(c.llm.vision.baseUrl, 'http://localhost:8001/v1');
  assert.equal(c.slackTransport, null);
  assert.match(c.storeUrl, /^sqlite:\/\/.*data[/\\]threadmind\.db$/);
  assert.ok(c.store.dedupeTtlSeconds >= 600);
});

test('environment variables override the defaults', () => {
  const c = loadConfig({
    env: {
      PORT: '8080',
      LLM_TEXT_BASE_URL: 'http://gpu-node:8000/v1',
      LLM_TEXT_MODEL: 'Qwen/Qwen3-8B',
      STORE_URL: 'redis://cache:6379',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's3cret',
      LOG_LEVEL: 'debug',
    },
  });
  assert.equal(c.server.port, 8080);
  assert.equal(c.llm.text.baseUrl, 'http://gpu-node:8000/v1');
  assert.equal(c.llm.text.model, 'Qwen/Qwen3-8B');
  assert.equal(c.storeUrl, 'redis://cache:6379');
  assert.equal(c.slackTransport, 'http');
  assert.equal(c.log.level, 'debug');
  assert.equal(c.secrets.slackSigningSecret, 's3cret');
});

test('an app-level token selects Socket Mode', () => {
  const c = loadConfig({ env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' } });
  assert.equal(c.slackTransport, 'socket');
});

test('every problem is listed at once, each naming its fix', () => {
  const problems = problemsOf(() =>
    loadConfig({
      env: {
        PORT: 'eighty',
        SLACK_BOT_TOKEN: 'xoxb-1',
        LLM_TEXT_BASE_URL: 'not a url',
        LOG_LEVEL: 'loud',
      },
    }),
  );
  assert.ok(
    problems.some((p) => /PORT must be a whole number/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /LLM_TEXT_BASE_URL/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /LOG_LEVEL/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /SLACK_SIGNING_SECRET is required when SLACK_BOT_TOKEN is set/.test(p)),
    problems.join('\n'),
  );
});

test('a signing secret without a bot token is refused with the fix', () => {
  const problems = problemsOf(() => loadConfig({ env: { SLACK_SIGNING_SECRET: 'x' } }));
  assert.match(problems.join('\n'), /SLACK_BOT_TOKEN is required/);
});

test('a YAML file named by THREADMIND_CONFIG is merged, but secrets in it are refused', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-config-'));
  const good = path.join(dir, 'good.yaml');
  writeFileSync(
    good,
    'core:\n  maxConcurrentTurns: 3\nchannels:\n  defaults:\n    replyMode: mention\n',
  );
  const c = loadConfig({ env: { THREADMIND_CONFIG: good } });
  assert.equal(c.core.maxConcurrentTurns, 3);
  assert.equal(c.channels.defaults.replyMode, 'mention');
  assert.equal(c.channels.defaults.channelContext, 10, 'sibling defaults kept');
  assert.equal(c.core.maxQueuedPerSession, 20, 'unrelated defaults kept');

  const bad = path.join(dir, 'bad.yaml');
  writeFileSync(
    bad,
    'slack:\n  botToken: xoxb-leaked\ncore:\n  maxConcurrentTurns: 0\n  typo: 1\n',
  );
  const problems = problemsOf(() => loadConfig({ env: { THREADMIND_CONFIG: bad } }));
  assert.ok(
    problems.some((p) => /slack\.botToken.*secret/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /core\.maxConcurrentTurns/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /typo/.test(p)),
    problems.join('\n'),
  );
});

test('the knowledge graph is enabled by NEO4J_URI with the reader account; the writer is optional', () => {
  assert.equal(loadConfig({ env: {} }).neo4j, null);
  const c = loadConfig({
    env: {
      NEO4J_URI: 'neo4j://graph:7687',
      NEO4J_USER: 'reader',
      NEO4J_PASSWORD: 'r',
      NEO4J_WRITER_USER: 'writer',
      NEO4J_WRITER_PASSWORD: 'w',
    },
  });
  assert.deepEqual(c.neo4j, { uri: 'neo4j://graph:7687', user: 'reader', password: 'r' });
  assert.deepEqual(c.neo4jWriter, { uri: 'neo4j://graph:7687', user: 'writer', password: 'w' });
  assert.equal(c.knowledge.text2cypher.enabled, false, 'Text2Cypher is off by default');
  const problems = problemsOf(() => loadConfig({ env: { NEO4J_URI: 'http://graph:7474' } }));
  assert.ok(
    problems.some((p) => /NEO4J_URI must start with neo4j:\/\//.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /NEO4J_USER and NEO4J_PASSWORD/.test(p)),
    problems.join('\n'),
  );
});

test('OAuth install mode needs the client credentials, the signing secret and an encryption key', () => {
  const key = Buffer.alloc(32, 7).toString('base64');
  const c = loadConfig({
    env: {
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'cs',
      SLACK_SIGNING_SECRET: 'ss',
      THREADMIND_ENCRYPTION_KEY: `${key}, ${Buffer.alloc(32, 9).toString('hex')}`,
    },
  });
  assert.equal(c.slackOAuth, true);
  assert.equal(c.slackTransport, 'http');
  assert.equal(c.secrets.encryptionKeys?.length, 2, 'a second key for rotation');
  const noKey = problemsOf(() =>
    loadConfig({
      env: { SLACK_CLIENT_ID: '123.456', SLACK_CLIENT_SECRET: 'cs', SLACK_SIGNING_SECRET: 'ss' },
    }),
  );
  assert.ok(
    noKey.some((p) => /THREADMIND_ENCRYPTION_KEY is required/.test(p)),
    noKey.join('\n'),
  );
  const weak = problemsOf(() =>
    loadConfig({
      env: {
        SLACK_CLIENT_ID: '123.456',
        SLACK_CLIENT_SECRET: 'cs',
        SLACK_SIGNING_SECRET: 'ss',
        THREADMIND_ENCRYPTION_KEY: 'short',
      },
    }),
  );
  assert.ok(
    weak.some((p) => /key 1 must be 32 random bytes/.test(p)),
    weak.join('\n'),
  );
  assert.ok(!weak.join('\n').includes('short'), 'the key itself is never printed');
  const both = problemsOf(() =>
    loadConfig({
      env: {
        SLACK_CLIENT_ID: '123.456',
        SLACK_CLIENT_SECRET: 'cs',
        SLACK_SIGNING_SECRET: 'ss',
        SLACK_BOT_TOKEN: 'xoxb-1',
        THREADMIND_ENCRYPTION_KEY: key,
      },
    }),
  );
  assert.ok(both.some((p) => /not both/.test(p)));
});
