// THREADMIND_ROLE: a split role that cannot work is refused at start-up with what to set.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  assert.fail('expected a ConfigError');
}

const SLACK = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'secret' };
const DISCORD = { DISCORD_TOKEN: 'token', DISCORD_APPLICATION_ID: '1234567890123456789' };
const REDIS = { STORE_URL: 'redis://127.0.0.1:6379' };

test('the default role is all, and a split role with Redis and its platform loads', () => {
  assert.equal(loadConfig({ env: {} }).scale.role, 'all');
  const c = loadConfig({ env: { ...SLACK, ...DISCORD, ...REDIS, THREADMIND_ROLE: 'worker' } });
  assert.equal(c.scale.role, 'worker');
  assert.equal(c.webChat, null);
});

test('an unknown role names the accepted ones', () => {
  const [problem] = problemsOf({ ...SLACK, ...REDIS, THREADMIND_ROLE: 'workers' });
  assert.match(problem ?? '', /scale\.role \(THREADMIND_ROLE\)/);
  assert.match(problem ?? '', /all.*ingress.*worker.*gateway/);
});

test('split roles need Redis, and ingress and gateway need their platform', () => {
  assert.deepEqual(problemsOf({ ...SLACK, ...DISCORD, THREADMIND_ROLE: 'worker' }), [
    'THREADMIND_ROLE=worker needs a shared Redis store: set STORE_URL=redis://host:6379 (only THREADMIND_ROLE=all runs on SQLite)',
  ]);
  assert.match(
    problemsOf({ ...SLACK, ...REDIS, THREADMIND_ROLE: 'gateway' }).join('\n'),
    /THREADMIND_ROLE=gateway holds the Discord gateway: set DISCORD_TOKEN/,
  );
  assert.match(
    problemsOf({ ...DISCORD, ...REDIS, THREADMIND_ROLE: 'ingress' }).join('\n'),
    /THREADMIND_ROLE=ingress receives Slack events/,
  );
  assert.match(
    problemsOf({ ...SLACK, ...REDIS, THREADMIND_ROLE: 'ingress', WEB_ENABLED: 'true' }).join('\n'),
    /the web chat runs only with THREADMIND_ROLE=all/,
  );
});
