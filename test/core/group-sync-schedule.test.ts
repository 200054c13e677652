// The schedule that keeps a platform's groups current: a project is read when first seen and on
// every run after, each read's outcome is logged in the platform's words, and a failure waits for
// the next run. Timers are mocked: no test waits for a real interval.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { mock, test } from 'node:test';
import { GroupSyncSchedule } from '../../src/core/group-sync-schedule.ts';
import { createLogger } from '../../src/log/logger.ts';

function rig(projects?: () => Iterable<string>) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const reads: string[] = [];
  const schedule = new GroupSyncSchedule({
    sync: async (p) => {
      reads.push(p);
      if (p === 'broken') throw new Error('no scope');
      return 3;
    },
    ...(projects ? { projects } : {}),
    intervalMinutes: 30,
    log: createLogger('info', sink),
    words: { project: 'team', count: 'groups', synced: 'groups synced' },
    failed: (err) => ({ fields: { why: String(err) }, message: 'groups not read' }),
  });
  const settled = () => new Promise((r) => setImmediate(r));
  return { schedule, reads, lines, settled };
}

test('a project is read when first seen, once, and again on every run', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const { schedule, reads, lines, settled } = rig();
    schedule.watch('T1');
    schedule.watch('T1');
    schedule.watch('T2');
    await settled();
    assert.deepEqual(reads, ['T1', 'T2']);
    mock.timers.tick(30 * 60_000);
    await settled();
    assert.deepEqual(reads, ['T1', 'T2', 'T1', 'T2']);
    const synced = lines.filter((l) => l.msg === 'groups synced');
    assert.equal(synced.length, 4);
    assert.equal(synced[0]?.team, 'T1');
    assert.equal(synced[0]?.groups, 3);
    schedule.stop();
    mock.timers.tick(30 * 60_000);
    await settled();
    assert.equal(reads.length, 4, 'stopped: no more runs');
  } finally {
    mock.timers.reset();
  }
});

test('a failed read is logged in the platform’s words and retried on the next run', async () => {
  mock.timers.enable({ apis: ['setInterval'] });
  try {
    const current = ['ok', 'broken'];
    const { schedule, reads, lines, settled } = rig(() => current);
    schedule.start();
    await settled();
    const warning = lines.find((l) => l.msg === 'groups not read');
    assert.equal(warning?.team, 'broken');
    assert.equal(warning?.why, 'Error: no scope');
    current.pop();
    mock.timers.tick(30 * 60_000);
    await settled();
    assert.deepEqual(reads, ['ok', 'broken', 'ok'], 'each run reads the projects of that moment');
    schedule.stop();
  } finally {
    mock.timers.reset();
  }
});
