// The process's log as a person and a collector read it, and the start-up line's store label.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { storeLabel } from '../../src/compose/running-summary.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createProcessLogger } from '../../src/log/logger.ts';

function sink(): { text: () => string; stream: Writable } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { text: () => text, stream };
}

function logTwo(format: 'auto' | 'json' | 'pretty', isTTY: boolean): string {
  const out = sink();
  const log = createProcessLogger({ level: 'info', format }, { isTTY, to: out.stream });
  log.info({ running: { web: 'http://127.0.0.1:3000/' } }, 'threadmind is running');
  log
    .child({ component: 'doctor' })
    .error({ check: 'llm_text.models', status: 'fail', fix: 'Set LLM_LOCAL_MODEL.' }, '✗ broken');
  return out.text();
}

test('auto: JSON lines when the output is not a terminal', () => {
  const lines = logTwo('auto', false).trim().split('\n');
  assert.equal(lines.length, 2);
  const first = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
  assert.equal(first.msg, 'threadmind is running');
  assert.deepEqual(first.running, { web: 'http://127.0.0.1:3000/' });
});

test('pretty: level and message on one line, the fix under it, no process noise', () => {
  const text = logTwo('pretty', false);
  assert.match(text, /^\[\d\d:\d\d:\d\d\] INFO: threadmind is running\n/);
  assert.match(text, /ERROR: doctor: ✗ broken\n {4}fix: Set LLM_LOCAL_MODEL\./);
  assert.doesNotMatch(text, /"pid"|"hostname"|"service"|"running"|\{"level"/);
});

test('json wins over a terminal', () => {
  for (const line of logTwo('json', true).trim().split('\n')) assert.match(line, /^\{"level":/);
});

test('LOG_FORMAT is read into log.format and checked', () => {
  assert.equal(loadConfig({ env: {} }).log.format, 'auto');
  assert.equal(loadConfig({ env: { LOG_FORMAT: 'json' } }).log.format, 'json');
  assert.throws(
    () => loadConfig({ env: { LOG_FORMAT: 'xml' } }),
    (err: Error) => /log\.format \(LOG_FORMAT\)/.test(err.message),
  );
});

test('the start-up line names the store without its credentials', () => {
  assert.equal(storeLabel('redis://:s3cret@redis:6379/2'), 'Redis redis://redis:6379/2');
  assert.equal(
    storeLabel('rediss://user:pw@cache.example:6380'),
    'Redis rediss://cache.example:6380',
  );
  assert.equal(storeLabel('sqlite:///data/threadmind.db'), 'SQLite /data/threadmind.db');
});
