// AnswerAudience: when a turn's answer may stay where everyone reads it. Fails closed: an unknown
// audience or a failed check makes the answer private.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerAudience, type EvidenceAccess } from '../../src/core/audience.ts';
import type { KnowledgeAudience } from '../../src/core/channel-settings.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { Audience } from '../../src/model/platform-port.ts';
import { MockPort } from '../support/mock-port.ts';

const ref = { platform: 'slack' as const, projectId: 'T1', channelId: 'C1', sessionId: '1.0' };
const evidence = [{ chunk_id: 'c1', source_uri: 'kb://a' }];
/** Readers: who may read chunk c1. */
const accessFor = (readers: string[]): EvidenceAccess & { asked: string[][] } => {
  const asked: string[][] = [];
  return {
    asked,
    unreadable: async (_ref, ids, ev) => {
      asked.push([...ids]);
      return new Set(ids.some((id) => !readers.includes(id)) ? ev.map((e) => e.chunk_id) : []);
    },
  };
};

function audienceWith(
  audience: (() => Promise<Audience>) | undefined,
  access: EvidenceAccess | undefined,
  mode: KnowledgeAudience = 'audience',
) {
  const port = new MockPort();
  if (audience) Object.assign(port, { audience });
  return new AnswerAudience({
    port,
    to: { ref, context: {} },
    asker: 'U1',
    mode,
    access,
    log: silentLogger(),
  });
}

const members = (ids: string[]) => async (): Promise<Audience> => ({
  kind: 'channel',
  members: ids,
});

test('every member may read the evidence: public; the asker is not checked again', async () => {
  const access = accessFor(['U2', 'U3']);
  const a = audienceWith(members(['U1', 'U2', 'U3']), access);
  await a.admit(evidence);
  assert.equal(a.isPrivate, false);
  assert.deepEqual(access.asked, [['U2', 'U3']]);
});

test('one member may not read it: private', async () => {
  const a = audienceWith(members(['U1', 'U2', 'U3']), accessFor(['U2']));
  await a.admit(evidence);
  assert.equal(a.isPrivate, true);
  assert.equal(a.reason, 'evidence_not_readable_by_all');
});

test('a DM, or a channel whose admins chose the asker’s access: public without a check', async () => {
  const access = accessFor([]);
  const dm = audienceWith(async () => ({ kind: 'dm' }), access);
  await dm.admit(evidence);
  const asker = audienceWith(members(['U1', 'U2']), access, 'asker');
  await asker.admit(evidence);
  assert.equal(dm.isPrivate, false);
  assert.equal(asker.isPrivate, false);
  assert.deepEqual(access.asked, []);
});

test('no evidence: nothing to check', async () => {
  const a = audienceWith(members(['U1', 'U2']), accessFor([]));
  await a.admit([]);
  assert.equal(a.isPrivate, false);
});

test('fails closed: no audience from the port, no access checker, a failing read', async () => {
  const noAudience = audienceWith(undefined, accessFor(['U2']));
  await noAudience.admit(evidence);
  assert.equal(noAudience.reason, 'audience_unknown');
  const noAccess = audienceWith(members(['U1', 'U2']), undefined);
  await noAccess.admit(evidence);
  assert.equal(noAccess.reason, 'audience_unknown');
  const failing = audienceWith(
    async () => {
      throw new Error('conversations.members: ratelimited');
    },
    accessFor(['U2']),
  );
  await failing.admit(evidence);
  assert.equal(failing.reason, 'check_failed');
});
