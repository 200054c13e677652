import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifySlackEvent, type SlackMessageEvent } from '../../adapters/slack/slack-events.ts';

const BOT = 'UBOT';
const env = { team_id: 'T1', event_id: 'Ev1' };
const ev = (e: Partial<SlackMessageEvent>): SlackMessageEvent => ({
  type: 'message',
  channel: 'C1',
  ts: '10.1',
  user: 'U1',
  text: 'hi',
  channel_type: 'channel',
  ...e,
});

test('a top-level mention starts a session under itself; in a thread the root is the session', () => {
  const top = classifySlackEvent(env, ev({ type: 'app_mention', text: `<@${BOT}> help` }), BOT);
  assert.deepEqual(top?.ref, {
    platform: 'slack',
    projectId: 'T1',
    channelId: 'C1',
    sessionId: '10.1',
  });
  assert.equal(top?.text, 'help');
  const inThread = classifySlackEvent(
    env,
    ev({ type: 'app_mention', text: `<@${BOT}|threadmind> more`, ts: '12.5', thread_ts: '10.1' }),
    BOT,
  );
  assert.equal(inThread?.ref.sessionId, '10.1');
  assert.equal(inThread?.text, 'more');
});

test('plain channel messages are ambient: the channel reply mode decides; mentions of others are noted', () => {
  const chatter = classifySlackEvent(env, ev({}), BOT);
  assert.equal(chatter?.addressed, 'ambient', 'top-level chatter');
  assert.equal(chatter?.topLevel, true);
  assert.equal(
    classifySlackEvent(env, ev({ thread_ts: '9.9', text: 'hey <@U777> look' }), BOT)
      ?.mentionsOthers,
    true,
  );
  assert.equal(
    classifySlackEvent(env, ev({ thread_ts: '9.9', text: 'ping <!subteam^S12>' }), BOT)
      ?.mentionsOthers,
    true,
  );
  assert.equal(
    classifySlackEvent(env, ev({ text: `<@${BOT}> hi` }), BOT),
    null,
    'mentions are handled as app_mention',
  );
  const followUp = classifySlackEvent(env, ev({ thread_ts: '9.9' }), BOT);
  assert.equal(followUp?.addressed, 'ambient');
  assert.equal(followUp?.topLevel, false);
  assert.equal(followUp?.mentionsOthers, false);
});

test('DMs are always answered; each DM thread is a session', () => {
  const dm = classifySlackEvent(env, ev({ channel: 'D1', channel_type: 'im' }), BOT);
  assert.equal(dm?.addressed, 'direct');
  assert.equal(dm?.isDirect, true);
  assert.equal(dm?.ref.sessionId, '10.1');
});

test('edits, joins, bot posts and the bot itself are never questions', () => {
  for (const e of [
    ev({ subtype: 'message_changed' }),
    ev({ subtype: 'channel_join' }),
    ev({ bot_id: 'B2' }),
    ev({ user: BOT }),
    ev({ user: undefined as unknown as string }),
  ]) {
    assert.equal(classifySlackEvent(env, { ...e, thread_ts: '1.1' }, BOT), null);
  }
  assert.ok(classifySlackEvent(env, ev({ subtype: 'file_share', thread_ts: '1.1' }), BOT));
});

test('inside an Enterprise Grid org the project names enterprise and team', () => {
  const c = classifySlackEvent(
    { ...env, enterprise_id: 'E9' },
    ev({ type: 'app_mention', text: `<@${BOT}> x` }),
    BOT,
  );
  assert.equal(c?.ref.projectId, 'E9.T1');
});
