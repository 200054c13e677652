// `npm start` as a newcomer meets it: nothing configured, or configured wrongly.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/main.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tm-start-')),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

test('with no chat platform configured, start says what to set and exits non-zero', async () => {
  const { code, stderr } = await start({});
  assert.equal(code, 2);
  assert.match(stderr, /SLACK_BOT_TOKEN=xoxb-/);
  assert.match(stderr, /SLACK_APP_TOKEN=xapp-/);
  assert.match(stderr, /LLM_TEXT_BASE_URL/);
});

test('a wrong configuration is listed in full, with fixes, and start exits 1', async () => {
  const { code, stderr } = await start({ SLACK_BOT_TOKEN: 'not-a-token', PORT: 'abc' });
  assert.equal(code, 1);
  assert.match(stderr, /SLACK_BOT_TOKEN must be a bot token starting with xoxb-/);
  assert.match(stderr, /SLACK_SIGNING_SECRET is required when SLACK_BOT_TOKEN is set/);
  assert.match(stderr, /PORT must be a whole number/);
});
