// One derivation of a payload's workspace, Bolt's: checked on recorded payloads of every shape
// (test/fixtures/slack-payloads) and on the Grid shapes Bolt's own source distinguishes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  type SlackSourceFields,
  slackInstallSource,
  slackPayloadKind,
  slackSource,
} from '../../adapters/slack/slack-source.ts';

const recorded = (file: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/slack-payloads/${file}`, import.meta.url), 'utf8'),
  ) as SlackSourceFields;

test('every recorded payload that names a workspace gets a project', () => {
  const index = JSON.parse(
    readFileSync(new URL('../fixtures/slack-payloads/index.json', import.meta.url), 'utf8'),
  ) as { file: string }[];
  // A url_verification names none; an org-wide revocation names only the org (no workspace).
  // Bolt types no dialog cancellation or legacy workflow step edit, so it authorizes neither.
  const without = new Set([
    'dialog_cancellation.json',
    'workflow_step_edit.json',
    'event-url_verification.json',
    'event-team_access_granted.json',
    'event-team_access_revoked.json',
    'event-tokens_revoked-org-wide.json',
    'event-app_uninstalled-org-wide.json',
  ]);
  for (const { file } of index) {
    const source = slackSource(recorded(file));
    if (without.has(file)) assert.equal(source, undefined, file);
    else assert.match(source?.projectId ?? '', /^(E0EMUORG01\.)?T0EMU00001$/, file);
  }
});

test("an event's installation wins: an org-wide install's mention is the envelope's workspace", () => {
  assert.deepEqual(slackSource(recorded('event-app_mention-org-wide-install.json')), {
    teamId: 'T0EMU00001',
    enterpriseId: 'E0EMUORG01',
    isEnterpriseInstall: true,
    projectId: 'E0EMUORG01.T0EMU00001',
  });
  // Outside Grid the installation's enterprise_id is null.
  assert.equal(slackSource(recorded('event-app_mention-bare.json'))?.projectId, 'T0EMU00001');
});

test('interactions: enterprise.id, else team.enterprise_id; team.id, else the person’s team', () => {
  const user = { id: 'U1', team_id: 'T2' };
  const press = { type: 'block_actions', actions: [] };
  assert.equal(
    slackSource({ ...press, team: { id: 'T1', enterprise_id: 'E1' }, user })?.projectId,
    'E1.T1',
  );
  assert.equal(
    slackSource({
      ...press,
      team: { id: 'T1', enterprise_id: 'E9' },
      enterprise: { id: 'E1' },
      user,
    })?.projectId,
    'E1.T1',
  );
  assert.equal(
    slackSource({ ...press, team: null, enterprise: { id: 'E1' }, user })?.projectId,
    'E1.T2',
  );
  assert.equal(
    slackSource({ ...press, team: { id: 'T1' }, enterprise: null, user })?.projectId,
    'T1',
  );
});

test("a modal from a Slack Connect channel is the installing workspace's", () => {
  const b = recorded('view_submission-org-wide-install.json');
  assert.equal(slackSource(b)?.projectId, 'E0EMUORG01.T0EMU00001');
});

test("a slash command's form names team_id and enterprise_id at the top", () => {
  assert.equal(
    slackSource({ command: '/x', team_id: 'T1', enterprise_id: 'E1' })?.projectId,
    'E1.T1',
  );
  assert.equal(slackSource(recorded('command-unknown-2.json'))?.projectId, 'T0EMU00001');
});

test("a view's installing team counts for its submission and close, not for a button in it", () => {
  // Bolt reads `view.app_installed_team_id` for view payloads only; a block_actions from inside
  // a modal is authorized by `team.id`.
  const modal = {
    team: { id: 'T1' },
    user: { id: 'U1', team_id: 'T1' },
    view: { app_installed_team_id: 'T9' },
  };
  assert.equal(slackSource({ ...modal, type: 'block_actions', actions: [{}] })?.projectId, 'T1');
  assert.equal(slackSource({ ...modal, type: 'view_submission' })?.projectId, 'T9');
  assert.equal(slackSource({ ...modal, type: 'view_closed' })?.projectId, 'T9');
});

test('the payload kinds in the order Bolt tells them apart', () => {
  assert.equal(slackPayloadKind({ event: {} }), 'event');
  assert.equal(slackPayloadKind({ command: '/x' }), 'command');
  assert.equal(slackPayloadKind({ type: 'block_suggestion' }), 'options');
  // A dialog's options request names the field; its submission is an action.
  assert.equal(slackPayloadKind({ type: 'dialog_suggestion', name: 'f' }), 'options');
  assert.equal(slackPayloadKind({ type: 'dialog_submission' }), 'action');
  assert.equal(slackPayloadKind({ type: 'interactive_message', actions: [] }), 'action');
  assert.equal(slackPayloadKind({ type: 'message_action' }), 'shortcut');
  assert.equal(slackPayloadKind({ type: 'view_closed' }), 'view');
  assert.equal(slackPayloadKind({ type: 'dialog_cancellation' }), undefined);
  assert.equal(slackSource({ type: 'dialog_cancellation', team: { id: 'T1' } }), undefined);
});

test('an org-wide install as Bolt reads it: the installation, a command’s string, the body', () => {
  assert.equal(
    slackInstallSource(recorded('event-app_mention-org-wide-install.json'))?.isEnterpriseInstall,
    true,
  );
  assert.equal(
    slackInstallSource(recorded('event-app_uninstalled.json'))?.isEnterpriseInstall,
    false,
  );
  assert.deepEqual(
    slackInstallSource({
      command: '/x',
      team_id: 'T1',
      enterprise_id: 'E1',
      is_enterprise_install: 'true',
    }),
    { teamId: 'T1', enterpriseId: 'E1', isEnterpriseInstall: true },
  );
  assert.deepEqual(slackSource(recorded('view_closed-org-wide-install.json')), {
    teamId: 'T0EMU00001',
    enterpriseId: 'E0EMUORG01',
    isEnterpriseInstall: true,
    projectId: 'E0EMUORG01.T0EMU00001',
  });
  // An org-wide uninstall names the org only: Bolt's source has no team.
  assert.equal(
    slackInstallSource(recorded('event-app_uninstalled-org-wide.json'))?.teamId,
    undefined,
  );
});
