// `npm start` as a newcomer meets it: nothing configured, configured wrongly, or an old Node.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    // What `npm start` runs.
    const child = spawn(process.execPath, ['bin/run.mjs', 'src/main.ts'], {
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

test('with no chat platform configured, start serves the web chat on loopback and prints its address', async () => {
  const child = spawn(process.execPath, ['bin/run.mjs', 'src/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tm-start-')),
      PORT: '0',
      LOG_LEVEL: 'silent',
      // The address is printed for a person (a terminal, or LOG_FORMAT=pretty).
      LOG_FORMAT: 'pretty',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += String(d);
        const m = /threadmind web chat: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before serving: ${out}`)));
    });
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>threadmind<\/title>/);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
});

test('with the web chat turned off and no platform, start says what to set and exits 2', async () => {
  const { code, stderr } = await start({ WEB_ENABLED: 'false' });
  assert.equal(code, 2);
  assert.match(stderr, /WEB_ENABLED=true/);
  assert.match(stderr, /SLACK_BOT_TOKEN=xoxb-/);
  assert.match(stderr, /LLM_TEXT_BASE_URL/);
});

test('exposing the web chat without WEB_AUTH_TOKEN stops start-up with the fix', async () => {
  const { code, stderr } = await start({ WEB_HOST: '0.0.0.0' });
  assert.equal(code, 1);
  assert.match(stderr, /WEB_AUTH_TOKEN is required when the web chat listens beyond loopback/);
});

test('a wrong configuration is listed in full, with fixes, and start exits 1', async () => {
  const { code, stderr } = await start({ SLACK_BOT_TOKEN: 'not-a-token', PORT: 'abc' });
  assert.equal(code, 1);
  assert.match(stderr, /SLACK_BOT_TOKEN must be a bot token starting with xoxb-/);
  assert.match(stderr, /SLACK_SIGNING_SECRET is required when SLACK_BOT_TOKEN is set/);
  assert.match(stderr, /PORT must be a whole number/);
});

const NEEDS =
  /^threadmind needs Node 22\.18 or newer \(24 LTS recommended\); this is Node 20\.20\.2\. Install/;

test('the version check names the required Node in one line', () => {
  const out = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const m = await import('./bin/run.mjs'); process.stdout.write(String(m.nodeProblem('20.20.2')) + '|' + String(m.nodeProblem('22.18.0')) + '|' + String(m.nodeProblem('24.1.0')));",
    ],
    { encoding: 'utf8' },
  );
  const [old, minimum, current] = out.split('|');
  assert.match(old ?? '', NEEDS);
  assert.equal(minimum, 'null');
  assert.equal(current, 'null');
});

test('on an older Node binary, start prints that one line and exits 1', () => {
  // The machine's own Node where it is older than the project's (Debian's is 20 here).
  const olds = ['/usr/bin/node', '/usr/local/bin/node']
    .filter((p) => existsSync(p) && realpathSync(p) !== realpathSync(process.execPath))
    .filter(
      (p) =>
        Number(
          execFileSync(p, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }),
        ) < 22,
    );
  for (const node of olds) {
    const r = spawnSync(node, ['bin/run.mjs', 'src/main.ts'], { encoding: 'utf8' });
    assert.equal(r.status, 1, node);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0] ?? '', /^threadmind needs Node 22\.18 or newer .*this is Node \d+\./);
  }
});
