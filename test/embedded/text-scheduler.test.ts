// How the embedding engine shares its contexts among requests: results in input order, a search's
// single text answered before the rest of a long ingest batch, a failure confined to its request.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TextScheduler } from '../../src/llm/embedded/text-scheduler.ts';

/** Two workers that "embed" a text as its upper case after a turn of the event loop. */
function scheduler(log: string[] = []) {
  return new TextScheduler(['A', 'B'], async (worker, text) => {
    await nextTurn();
    if (text === 'boom') throw new Error('evaluation failed');
    log.push(`${worker}:${text}`);
    return text.toUpperCase();
  });
}

describe('TextScheduler', () => {
  test('every text gets its result, in input order, across both workers', async () => {
    const log: string[] = [];
    const texts = Array.from({ length: 7 }, (_, i) => `t${i}`);
    assert.deepEqual(
      await scheduler(log).run(texts),
      texts.map((t) => t.toUpperCase()),
    );
    assert.ok(log.some((l) => l.startsWith('A:')) && log.some((l) => l.startsWith('B:')));
  });

  test('a one-text request sent during a long batch is answered before the batch', async () => {
    const s = scheduler();
    const done: string[] = [];
    const batch = s.run(Array.from({ length: 40 }, (_, i) => `chunk ${i}`)).then(() => {
      done.push('batch');
    });
    await nextTurn();
    const query = s.run(['how do I get my money back']).then((out) => {
      done.push('query');
      return out;
    });
    assert.deepEqual(await query, ['HOW DO I GET MY MONEY BACK']);
    await batch;
    assert.deepEqual(done, ['query', 'batch']);
  });

  test('a failed text fails its request only; the others and the next are answered', async () => {
    const s = scheduler();
    const bad = s.run(['a', 'boom', 'c', 'd', 'e']);
    const good = s.run(['x', 'y']);
    await assert.rejects(bad, /evaluation failed/);
    assert.deepEqual(await good, ['X', 'Y']);
    assert.deepEqual(await s.run(['z']), ['Z']);
    await s.drained();
  });

  test('an aborted request stops taking texts and rejects with the reason', async () => {
    const s = scheduler();
    const ctl = new AbortController();
    const run = s.run(
      Array.from({ length: 20 }, (_, i) => `t${i}`),
      ctl.signal,
    );
    ctl.abort(new Error('caller gave up'));
    await assert.rejects(run, /caller gave up/);
    await s.drained();
    assert.deepEqual(await s.run([]), []);
  });
});
