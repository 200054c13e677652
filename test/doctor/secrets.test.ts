// Nothing the doctor prints may carry a secret, whether the checks pass or fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closedPort, doctorProcess, startSetup } from './setup.ts';

const SLACK_BOT = 'xoxb-1111111111-2222222222-doctorSecretBotTokenValue';
const SLACK_APP = 'xapp-1-A0EMUAPP01-3333333333-doctorSecretAppTokenValue';
const LLM_KEY = 'sk-doctor-secret-llm-key-value';
const REDIS_PASSWORD = 'doctor-secret-redis-password';
const NEO4J_PASSWORD = 'doctor-secret-neo4j-password';
const PROXY_PASSWORD = 'doctor-secret-proxy-password';

test('tokens, keys and passwords never appear in the output, passing or failing', async () => {
  const s = await startSetup({
    slackBotToken: SLACK_BOT,
    slackAppToken: SLACK_APP,
    llmApiKey: LLM_KEY,
  });
  try {
    const port = await closedPort();
    const base = {
      ...s.env,
      NEO4J_URI: `bolt://neo4j:${NEO4J_PASSWORD}@127.0.0.1:${port}`,
      NEO4J_USER: 'reader',
      NEO4J_PASSWORD,
      HTTPS_PROXY: `http://proxyuser:${PROXY_PASSWORD}@127.0.0.1:${port}`,
    };
    const passing = await doctorProcess({ ...base });
    // The secrets were in use: Slack, Discord and the model endpoints accepted them.
    assert.match(passing.stdout, /✓ slack\.auth/);
    assert.match(passing.stdout, /✓ slack\.socket_mode/);
    assert.match(passing.stdout, /✓ discord\.token/);
    assert.match(passing.stdout, /✓ llm_text\.tool_calls/);
    // A wrong store and wrong model key make failures whose messages could echo what they were given.
    const failing = await doctorProcess({
      ...base,
      STORE_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${port}`,
      LLM_TEXT_BASE_URL: `http://apiuser:${LLM_KEY}@127.0.0.1:${port}/v1`,
    });
    assert.equal(failing.code, 1);
    assert.match(failing.stdout, /✗ store/);
    assert.match(failing.stdout, /✗ llm_text\.models .*‹redacted›@127\.0\.0\.1/);
    const secrets = [
      SLACK_BOT,
      SLACK_APP,
      s.discord.botToken,
      LLM_KEY,
      REDIS_PASSWORD,
      NEO4J_PASSWORD,
      PROXY_PASSWORD,
    ];
    for (const run of [passing, failing]) {
      const printed = run.stdout + run.stderr;
      for (const secret of secrets) assert.ok(!printed.includes(secret), `printed: ${secret}`);
    }
  } finally {
    await s.close();
  }
});
