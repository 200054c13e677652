// The first minute of `npm start`, as a newcomer sees it: the start-up checks describe what is
// running (web chat only, the embedded model's state with its fix), the log reads well at a
// terminal and stays JSON lines in a pipe or with LOG_FORMAT=json, and one line says what runs.
// Nothing here downloads: the model host is a loopback port nothing listens on.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { closedPort, doctorProcess, startSetup } from '../doctor/setup.ts';

type Line = Record<string, unknown>;

interface Started {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout so far. */
  out(): string;
  /** Resolves once `seen` holds for the output so far; rejects if the process exits first. */
  until(seen: (out: string) => boolean): Promise<string>;
  stop(): Promise<void>;
}

/** `npm start` in a child process; `tty`: under a pseudo-terminal (`script`), as at a terminal. */
function start(env: Record<string, string>, o: { tty?: boolean } = {}): Started {
  const command = [process.execPath, 'bin/run.mjs', 'src/main.ts'];
  const child = o.tty
    ? spawn('script', ['-qec', command.join(' '), '/dev/null'], { env, stdio: 'pipe' })
    : spawn(command[0] ?? '', command.slice(1), { env, stdio: 'pipe' });
  let out = '';
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (d) => {
    out += String(d);
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.resume();
  child.once('exit', () => {
    for (const w of waiters.splice(0)) w();
  });
  return {
    child,
    out: () => out,
    until: (seen) =>
      new Promise((resolve, reject) => {
        const look = () => {
          if (seen(out)) resolve(out);
          else if (child.exitCode !== null || child.signalCode !== null)
            reject(new Error(`exited before it was seen:\n${out}`));
          else waiters.push(look);
        };
        look();
      }),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function jsonLines(out: string): Line[] {
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

const checkLine = (lines: Line[], name: string) => lines.find((l) => l.check === name);

/** Nothing configured; the model host and the download mirror both unreachable. */
async function newcomerEnv(): Promise<Record<string, string>> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tm-first-')),
    PORT: '0',
    HF_ENDPOINT: `http://127.0.0.1:${await closedPort()}/`,
  };
}

const CHECKS_DONE = (names: string[]) => (out: string) =>
  names.every((n) => out.includes(`"check":"${n}"`)) && out.includes('threadmind is running');

test('with nothing configured and no model host, start-up checks describe what runs, and the web chat answers', async () => {
  const env = await newcomerEnv();
  const app = start(env);
  try {
    const out = await app.until(CHECKS_DONE(['config', 'llm_text.models', 'store']));
    // Piped stdout: JSON lines, every one of them.
    const lines = jsonLines(out.slice(0, out.lastIndexOf('\n')));

    const config = checkLine(lines, 'config');
    assert.equal(config?.status, 'ok');
    assert.match(String(config?.msg), /^✓ config: web chat only: no Slack or Discord configured/);
    assert.ok(!lines.some((l) => l.status === 'fail' && l.check === 'config'));

    // The text model in use is the embedded engine, which cannot get its model: said with its fix.
    const models = checkLine(lines, 'llm_text.models');
    assert.equal(models?.status, 'fail');
    assert.match(String(models?.msg), /embedded model .*cannot run: Cannot download .*offline/);
    assert.match(String(models?.fix), /set LLM_LOCAL_MODEL=\/path\/to\/model\.gguf/);
    assert.doesNotMatch(out, /cannot list models at http:\/\/localhost:8000/);

    // One line says what runs and how to reach it.
    const running = lines.find((l) => String(l.msg).startsWith('threadmind is running'));
    const fields = running?.running as Record<string, unknown> | undefined;
    assert.deepEqual(fields?.platforms, ['web chat']);
    assert.match(String(fields?.model), /^none: the embedded model cannot run/);
    assert.match(String(fields?.store), /^SQLite .*threadmind\.db$/);
    assert.match(String(fields?.embeddings), /^none/);
    const web = String(fields?.web);
    assert.match(web, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.match(String(running?.msg), new RegExp(`web chat at ${web}`));

    const page = await fetch(web);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>threadmind<\/title>/);

    // `npm run doctor` says the same about the configuration and the model.
    const doctor = await doctorProcess(env);
    assert.match(doctor.stdout, /✓ config\s+web chat only: no Slack or Discord configured/);
    assert.match(
      doctor.stdout,
      /✗ llm_text\.models\s+.*embedded model .*cannot run: Cannot download/,
    );
    assert.match(doctor.stdout, /fix: Copy a \.gguf file here and set LLM_LOCAL_MODEL=/);
    assert.doesNotMatch(doctor.stdout, /cannot list models at http:\/\/localhost:8000/);

    // Nothing was downloaded.
    const models_ = path.join(env.DATA_DIR ?? '', 'models');
    const files = readdirSync(models_, { recursive: true }).map(String);
    assert.ok(!files.some((f) => f.endsWith('.gguf')), files.join(', '));
  } finally {
    await app.stop();
    rmSync(env.DATA_DIR ?? '', { recursive: true, force: true });
  }
});

test('at a terminal the log is short readable lines, and the web chat address stands out', async () => {
  const env = await newcomerEnv();
  const app = start(env, { tty: true });
  try {
    const out = await app.until((o) => /threadmind web chat: http:\/\/127\.0\.0\.1:\d+\//.test(o));
    assert.doesNotMatch(out, /\{"level":/);
    assert.match(out, /INFO.*✓ config: web chat only: no Slack or Discord configured/);
    assert.match(out, /ERROR.*✗ llm_text\.models: .*cannot run/);
    // The check's fix on a line of its own under it.
    assert.match(out, /\n\s+fix: Copy a \.gguf file here and set LLM_LOCAL_MODEL=/);
    assert.match(out, /INFO.*threadmind is running: web chat at http:\/\/127\.0\.0\.1:\d+\//);
    // What to do next, after the checks.
    assert.match(
      out,
      /1 check failed \(✗ above, each with its fix\); `npm run doctor` checks again/,
    );
  } finally {
    await app.stop();
    rmSync(env.DATA_DIR ?? '', { recursive: true, force: true });
  }
});

test('LOG_FORMAT=json keeps JSON lines even at a terminal', async () => {
  const env: Record<string, string> = { ...(await newcomerEnv()), LOG_FORMAT: 'json' };
  const app = start(env, { tty: true });
  try {
    const out = await app.until(CHECKS_DONE(['config', 'llm_text.models']));
    const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '');
    const complete = lines.slice(0, -1);
    assert.ok(complete.length > 3);
    for (const l of complete) assert.match(l, /^\{"level":\d+,/);
    assert.doesNotMatch(out, /threadmind web chat: /);
  } finally {
    await app.stop();
    rmSync(env.DATA_DIR ?? '', { recursive: true, force: true });
  }
});

test('with Slack configured and the model server reachable, the checks are those of a configured bot', async () => {
  const s = await startSetup();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: '0',
    ...s.env,
    LOG_LEVEL: 'info',
  };
  const app = start(env);
  try {
    const out = await app.until(
      CHECKS_DONE(['config', 'slack.auth', 'llm_text.models', 'llm_text.context', 'llm_embed']),
    );
    const lines = jsonLines(out.slice(0, out.lastIndexOf('\n')));
    assert.match(
      String(checkLine(lines, 'config')?.msg),
      /^✓ config: configuration valid: Slack \(Socket Mode\), Discord, SQLite store/,
    );
    assert.equal(checkLine(lines, 'slack.auth')?.status, 'ok');
    const models = checkLine(lines, 'llm_text.models');
    assert.equal(models?.status, 'ok');
    assert.match(String(models?.msg), /^✓ llm_text\.models: serves /);
    assert.equal(checkLine(lines, 'llm_text.context')?.status, 'ok');
    assert.equal(checkLine(lines, 'llm_embed')?.status, 'ok');
    assert.doesNotMatch(out, /embedded model/);
    const running = lines.find((l) => String(l.msg).startsWith('threadmind is running'));
    const fields = running?.running as Record<string, unknown> | undefined;
    assert.deepEqual(fields?.platforms, ['Slack (Socket Mode)', 'Discord']);
    assert.equal(fields?.model, `model server ${s.text.baseURL}`);
    assert.equal(fields?.web, undefined);
  } finally {
    await app.stop();
    await s.close();
  }
});

test('with the embedded model loaded, the checks report its file, context and threads', async () => {
  const file = process.env.TEST_LOCAL_MODEL ?? '';
  const env: Record<string, string> = {
    ...(await newcomerEnv()),
    LLM_LOCAL_MODEL: file,
    LLM_LOCAL_THREADS: '1',
    LLM_LOCAL_CONTEXT: '2048',
  };
  // What `npm run doctor` expects before anything is loaded (it never loads the model itself).
  const doctor = await doctorProcess(env);
  assert.match(
    doctor.stdout,
    /✓ llm_text\.models\s+no model server answers at http:\/\/localhost:8000\/v1, so npm start loads the embedded model from \S+SmolLM2/,
  );
  assert.match(doctor.stdout, /– llm_text\.context\s+not checked: the doctor does not load/);
  const app = start(env);
  try {
    const out = await app.until(
      CHECKS_DONE(['llm_text.models', 'llm_text.context', 'llm_vision.models']),
    );
    const lines = jsonLines(out.slice(0, out.lastIndexOf('\n')));
    const models = checkLine(lines, 'llm_text.models');
    assert.equal(models?.status, 'ok');
    assert.match(
      String(models?.msg),
      /the embedded model serves SmolLM2\S* from \S+\.gguf: context 2048 tokens, 1 CPU thread, on http:\/\/127\.0\.0\.1:\d+\/v1/,
    );
    assert.match(String(checkLine(lines, 'llm_text.context')?.msg), /window 2048/);
    // The embedded text model reads no images: no probe of a vision address nothing uses.
    assert.equal(checkLine(lines, 'llm_vision.models')?.status, 'skip');
    const running = lines.find((l) => String(l.msg).startsWith('threadmind is running'));
    const fields = running?.running as Record<string, unknown> | undefined;
    assert.match(
      String(fields?.model),
      /^embedded SmolLM2\S* \(\S+\.gguf; context 2048, 1 thread\)$/,
    );
  } finally {
    await app.stop();
    rmSync(env.DATA_DIR ?? '', { recursive: true, force: true });
  }
});
