import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownersOf, type ThreadRef } from '../../src/model/thread-ref.ts';
import { currentScope, runInScope, type TurnScope } from '../../src/scope/scope.ts';
import { mulberry32 } from '../support/prng.ts';

// Seeded, so a failing interleaving can be replayed.
const SEED = 0x5eed;
const random = mulberry32(SEED);

function scopeFor(i: number): TurnScope {
  const ref: ThreadRef = {
    platform: 'slack',
    projectId: `T${i % 3}`,
    channelId: `C${i}`,
    sessionId: `${i}.0001`,
  };
  return { ref, principal: `U${i}`, owners: ownersOf(ref), images: [], traceId: `trace-${i}` };
}

test('owners are the session, channel and project, each keyed by platform and project', () => {
  const owners = ownersOf({
    platform: 'slack',
    projectId: 'T1',
    channelId: 'C9',
    sessionId: '171.01',
  });
  assert.deepEqual(owners, [
    { kind: 'session', key: 'slack:T1:C9:171.01' },
    { kind: 'channel', key: 'slack:T1:C9' },
    { kind: 'project', key: 'slack:T1' },
  ]);
});

test('200 interleaved turns each see only their own scope, also after errors', async () => {
  const seen = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      runInScope(scopeFor(i), async () => {
        const observed: string[] = [];
        for (let step = 0; step < 5; step++) {
          await sleep(Math.floor(random() * 3));
          observed.push(currentScope()?.principal ?? 'none');
          if (i % 7 === 0 && step === 2) {
            try {
              await Promise.reject(new Error('tool failed mid-turn'));
            } catch {
              // the turn goes on after a failing tool
            }
          }
        }
        return { i, observed };
      }),
    ),
  );
  for (const { i, observed } of seen) {
    assert.deepEqual(observed, Array(5).fill(`U${i}`));
  }
  assert.equal(currentScope(), undefined, 'no scope leaks out of run()');
});

test('a scope is frozen: a tool cannot widen its owners', () => {
  runInScope(scopeFor(1), () => {
    const s = currentScope();
    assert.ok(s);
    assert.throws(() => {
      (s as { principal: string }).principal = 'U999';
    }, TypeError);
  });
});
