// Platform group memberships (Slack user groups, Discord roles) as the adapters report them, and
// the principal id helpers the ACL reads them with.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupsOf } from '../../src/knowledge/acl.ts';
import { PlatformGroups } from '../../src/knowledge/platform-groups.ts';
import {
  everyoneOf,
  identitiesOf,
  isLegacyPrincipalId,
  legacyKeys,
} from '../../src/knowledge/principal-id.ts';

test('a full sync replaces a workspace; a group or a member update changes only itself', async () => {
  const g = new PlatformGroups();
  const synced = g.whenSynced('slack', 'T1');
  g.replaceWorkspace(
    'slack',
    'T1',
    new Map([
      ['S1', ['U1', 'U2']],
      ['S2', ['U2']],
    ]),
  );
  await synced;
  assert.deepEqual(g.groupsOf('slack:T1:U2').sort(), ['slack:T1:S1', 'slack:T1:S2']);
  assert.deepEqual(g.groupsOf('slack:T2:U2'), [], 'another workspace knows nothing of it');
  assert.deepEqual(g.groupsOf('slack:U2'), [], 'ids without a workspace get no platform group');

  g.setGroupMembers('slack', 'T1', 'S1', ['U3']);
  assert.deepEqual(g.groupsOf('slack:T1:U1'), []);
  assert.deepEqual(g.groupsOf('slack:T1:U2'), ['slack:T1:S2']);
  assert.deepEqual(g.groupsOf('slack:T1:U3'), ['slack:T1:S1']);

  g.setMemberGroups('discord', '42', '7', ['r1', 'r2']);
  g.setMemberGroups('discord', '42', '7', ['r2']);
  assert.deepEqual(g.groupsOf('discord:42:7'), ['discord:42:r2']);
  g.setGroupMembers('discord', '42', 'r2', []);
  assert.deepEqual(g.groupsOf('discord:42:7'), []);

  g.replaceWorkspace('slack', 'T1', new Map());
  assert.deepEqual(g.groupsOf('slack:T1:U3'), [], 'a full sync drops what is gone');
});

test('principal ids: the workspace, its everyone group, the deprecated form', () => {
  assert.equal(everyoneOf('slack:T1:U1'), 'slack:T1:everyone');
  assert.equal(everyoneOf('discord:dm:7'), undefined, 'a DM has no workspace');
  assert.equal(everyoneOf('alice'), undefined);
  assert.deepEqual(identitiesOf('slack:E1.T1:U1'), ['slack:E1.T1:U1', 'slack:U1']);
  assert.deepEqual(identitiesOf('web:local:u'), ['web:local:u']);
  assert.ok(isLegacyPrincipalId('slack:U1') && isLegacyPrincipalId('discord:80351110224678912'));
  assert.ok(!isLegacyPrincipalId('slack:T1:U1') && !isLegacyPrincipalId('web:u'));
  assert.deepEqual(legacyKeys({ 'slack:U1': [], 'slack:T1:U2': [] }), ['slack:U1']);
  const config = {
    principalGroups: { 'slack:U1': ['eng'], 'slack:T1:U1': ['ops'] },
    everyoneGroups: ['slack'],
  };
  assert.deepEqual([...groupsOf('slack:T1:U1', ['sre'], config)].sort(), [
    'eng',
    'ops',
    'slack:T1:everyone',
    'sre',
  ]);
  assert.deepEqual([...groupsOf('slack:T2:U9', [], config)], ['slack:T2:everyone']);
  // Off for a platform (Slack by default: Slack Connect channels hold other organisations' people).
  assert.deepEqual(
    [...groupsOf('slack:T2:U9', [], { ...config, everyoneGroups: ['discord'] })],
    [],
  );
});
