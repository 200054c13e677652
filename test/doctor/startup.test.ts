// The doctor's checks at start-up: one log line each as they finish, no probe that costs model
// time unless asked, and /readyz naming them beside its readiness checks.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/load-config.ts';
import { startStartupChecks } from '../../src/doctor/startup.ts';
import { createLogger } from '../../src/log/logger.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { startHarness } from '../support/harness.ts';
import { startSetup } from './setup.ts';

function capture(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, stream };
}

async function startupRun(onStart: 'quick' | 'full') {
  const s = await startSetup();
  const store = new SqliteStore(':memory:');
  try {
    const config = loadConfig({ env: { ...s.env, DOCTOR_ON_START: onStart } });
    const { lines, stream } = capture();
    const checks = startStartupChecks(config, { log: createLogger('info', stream), store });
    assert.ok(checks);
    await checks.done;
    return {
      lines: lines.filter((l) => l.component === 'doctor'),
      chats: s.text.requests.length,
      visionChats: s.vision.requests.length,
      states: checks.states(),
    };
  } finally {
    await store.close();
    await s.close();
  }
}

test('at start-up each check logs one line, and nothing costs model time', async () => {
  const run = await startupRun('quick');
  const names = run.states.map((st) => st.name);
  assert.equal(run.lines.length, names.length);
  assert.deepEqual(new Set(run.lines.map((l) => l.check)), new Set(names));
  const tool = run.lines.find((l) => l.check === 'llm_text.tool_calls');
  assert.equal(tool?.status, 'skip');
  assert.match(String(tool?.msg), /costs model time .*DOCTOR_ON_START=full/);
  assert.equal(run.lines.find((l) => l.check === 'llm_vision.image')?.status, 'skip');
  assert.match(
    String(run.lines.find((l) => l.check === 'slack.auth')?.msg),
    /^✓ slack\.auth: bot token accepted/,
  );
  assert.equal(run.chats, 0, 'no chat completion at start-up');
  assert.equal(run.visionChats, 0, 'no image analysis at start-up');
});

test('DOCTOR_ON_START=full also runs the tool-call and image probes', async () => {
  const run = await startupRun('full');
  assert.equal(run.states.find((st) => st.name === 'llm_text.tool_calls')?.status, 'ok');
  assert.equal(run.states.find((st) => st.name === 'llm_vision.image')?.status, 'ok');
  // The tool-call probe, and the one-token probe for vLLM's priority scheduling.
  assert.ok(run.states.some((st) => st.name === 'llm_text.priority'));
  assert.equal(run.chats, 2);
});

test('/readyz names the checks with their statuses and keeps its own readiness', async () => {
  // Slack grants fewer scopes than the manifest asks for: a ✗ that must not make the bot unready,
  // since readiness is about the store and the model answering.
  const h = await startHarness({
    overrides: { doctor: { onStart: 'quick' } },
    slackScopes: ['app_mentions:read', 'chat:write'],
  });
  try {
    await h.app.startupChecks?.done;
    const res = await fetch(`http://127.0.0.1:${h.app.port}/readyz`);
    const body = (await res.json()) as {
      status: string;
      checks: { name: string }[];
      doctor: { name: string; status: string }[];
    };
    assert.equal(res.status, 200);
    assert.equal(body.status, 'ready');
    assert.deepEqual(
      body.checks.map((c) => c.name),
      ['store', 'llm_text', 'llm_vision'],
    );
    const status = Object.fromEntries(body.doctor.map((d) => [d.name, d.status]));
    assert.equal(status['slack.auth'], 'ok');
    assert.equal(status['slack.scopes'], 'fail');
    assert.equal(status.store, 'ok');
    assert.equal(status['llm_text.tool_calls'], 'skip');
    assert.ok(!Object.values(status).includes('pending'));
  } finally {
    await h.close();
  }
});
