// Enterprise Grid as Slack sends it: interactions that name the org only in `team.enterprise_id`
// (no top-level `enterprise`), and an org-wide install's (`team: null`, the workspace in
// `user.team_id`). A vote, the ask-about shortcut and a settings change each find the workspace
// the answer, the message or the settings belong to (`E….T…`), as Bolt finds the installation.
// The payloads are recorded ones (test/fixtures/slack-payloads) with this workspace's ids.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { filledIn } from '../contract/slack-flow-driver.ts';
import { buildState } from '../emulators/slack/app-interactions.ts';
import type { SlackMessage } from '../emulators/slack/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { botReplies } from '../support/slack-helpers.ts';

const ORG = 'E0EMUORG01';
const ASKER = 'U0GRIDASK1';
const VOTER = 'U0GRIDVOTE';
const ADMIN = 'U0GRIDADMN';
type Json = Record<string, unknown>;

const recorded = (file: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/slack-payloads/${file}`, import.meta.url), 'utf8'),
  ) as Json;

/** The two shapes Slack uses for a Grid workspace's interactions. */
const SHAPES = {
  'team.enterprise_id only': (team: string) => ({
    team: { id: team, domain: 'grid-workspace', enterprise_id: ORG, enterprise_name: 'Grid' },
    is_enterprise_install: false,
  }),
  'an org-wide install (team: null)': (_team: string) => ({
    team: null,
    enterprise: { id: ORG, name: 'Grid' },
    is_enterprise_install: true,
  }),
} as const;
/** The same shapes as the emulator sends them from its own buttons and modals. */
const EMULATED = {
  'team.enterprise_id only': 'team-only',
  'an org-wide install (team: null)': 'org-wide',
} as const;

/** A recorded payload with its ids swapped for this workspace's and the shape's. */
function inGrid(file: string, shape: keyof typeof SHAPES, team: string, user: string): Json {
  const { enterprise: _recordedEnterprise, ...body } = recorded(file);
  return { ...body, ...SHAPES[shape](team), user: { id: user, name: user, team_id: team } };
}

describe('Enterprise Grid payloads find their workspace', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.llm.setResponder(() => ({ content: 'Grid answer.' }));
    h.slack.setUser(ADMIN, { is_admin: true });
  });
  after(() => h.close());

  async function toldPrivately(seen: number): Promise<string> {
    const post = await h.slack.waitFor(() => h.slack.responses().slice(seen)[0]);
    return String(post.body.text ?? '');
  }

  async function ask(channel: string): Promise<{ ts: string; answer: SlackMessage }> {
    const { ts, deliveries } = await h.slack.postUserMessage({
      channel,
      user: ASKER,
      text: `<@${h.slack.botUserId}> what is the retry limit?`,
      enterpriseId: ORG,
    });
    await h.handled(ts, deliveries.length);
    const answer = botReplies(h.slack, channel, ts).findLast((m) => voteRef(m) !== undefined);
    assert.ok(answer, 'the answer carries vote buttons');
    return { ts, answer };
  }

  for (const [i, shape] of (Object.keys(SHAPES) as (keyof typeof SHAPES)[]).entries()) {
    test(`a 👍 through ${shape} is stored`, async () => {
      const channel = `C0GRIDVT${i}`;
      const { ts, answer } = await ask(channel);
      const body = inGrid('block_actions-unknown-button.json', shape, h.slack.teamId, VOTER);
      body.channel = { id: channel, name: 'grid' };
      body.container = {
        type: 'message',
        message_ts: answer.ts,
        channel_id: channel,
        thread_ts: ts,
      };
      body.actions = [
        { type: 'button', action_id: 'tm:up', block_id: 'v', value: voteRef(answer) },
      ];
      const seen = h.slack.responses().length;
      const r = await h.slack.replay('interactive', body);
      assert.equal(r.status, 200);
      assert.match(await toldPrivately(seen), /Thanks for the 👍/);
    });

    test(`a 👎 and then its reason through ${shape} are kept with the Grid workspace's answer`, async () => {
      const channel = `C0GRIDDN${i}`;
      const { answer } = await ask(channel);
      const grid = { enterpriseId: ORG, shape: EMULATED[shape] };
      const native = voteKind(answer) === 'feedback_buttons';
      const views = h.slack.openedViews().length;
      const pressed = await h.slack.pressButton({
        channel,
        ts: answer.ts,
        user: VOTER,
        actionId: native ? 'tm:vote' : 'tm:down',
        ...(native ? { choice: 'negative' as const } : {}),
        grid,
      });
      assert.equal(pressed.status, 200);
      // Not "That answer is too old to rate": the reason form opens.
      const form = await h.slack.waitFor(() =>
        h.slack
          .openedViews()
          .slice(views)
          .find((v) => v.userId === VOTER),
      );
      assert.match(JSON.stringify(form.view.blocks), /What was wrong with the answer/);
      const seen = h.slack.ephemeralMessages().length;
      const reason = `Grid reason ${i}: it missed the retry setting.`;
      const sent = await h.slack.submitView({
        viewId: form.id,
        user: VOTER,
        values: { reason: { value: reason } },
        grid,
      });
      assert.equal(sent.status, 200);
      const thanks = await h.slack.waitFor(() =>
        h.slack
          .ephemeralMessages()
          .slice(seen)
          .find((e) => e.user === VOTER),
      );
      assert.match(thanks.text, /noted/);
      // The export of that Grid workspace holds the 👎 with its reason.
      const asked = h.slack.ephemeralMessages().length;
      await h.slack.slashCommand({
        command: '/threadmind',
        text: 'feedback export json',
        user: ADMIN,
        channel,
        enterpriseId: ORG,
        orgWideInstall: EMULATED[shape] === 'org-wide',
      });
      const exported = await h.slack.waitFor(() =>
        h.slack
          .ephemeralMessages()
          .slice(asked)
          .find((e) => e.user === ADMIN),
      );
      assert.ok(exported.text.includes(reason), exported.text);
    });

    test(`"Ask threadmind about this" through ${shape} answers in the Grid workspace's thread`, async () => {
      const channel = `C0GRIDAA${i}`;
      const posted = await h.slack.postUserMessage({
        channel,
        user: ASKER,
        text: 'The deploy failed again last night.',
        enterpriseId: ORG,
      });
      await h.handled(posted.ts, posted.deliveries.length);
      const body = inGrid('message_action-ask-about.json', shape, h.slack.teamId, ASKER);
      body.channel = { id: channel, name: 'grid' };
      body.message_ts = posted.ts;
      body.action_ts = `${posted.ts}1`;
      body.message = {
        type: 'message',
        user: ASKER,
        ts: posted.ts,
        text: 'The deploy failed again last night.',
      };
      const r = await h.slack.replay('interactive', body);
      assert.equal(r.status, 200);
      await h.slack.waitFor(() =>
        botReplies(h.slack, channel, posted.ts).length ? true : undefined,
      );
      // The bot now takes part in that thread of the Grid workspace: a plain reply there is answered.
      const reply = await h.slack.postUserMessage({
        channel,
        user: ASKER,
        text: 'and what about tonight?',
        thread_ts: posted.ts,
        enterpriseId: ORG,
      });
      const [handled] = await h.handled(reply.ts, reply.deliveries.length);
      assert.equal(handled?.handled.status, 'turn');
    });

    test(`a settings change through ${shape} is the Grid workspace's`, async () => {
      const channel = `C0GRIDST${i}`;
      const views = h.slack.openedViews().length;
      await h.slack.slashCommand({
        command: '/threadmind',
        text: 'settings',
        user: ADMIN,
        channel,
        enterpriseId: ORG,
        orgWideInstall: EMULATED[shape] === 'org-wide',
      });
      const opened = await h.slack.waitFor(() => h.slack.openedViews().slice(views)[0]);
      const body = inGrid('view_submission-unknown.json', shape, h.slack.teamId, ADMIN);
      body.view = {
        ...opened.view,
        state: {
          values: buildState(opened.view, filledIn(opened.view, { instructions: 'Speak French.' })),
        },
      };
      const r = await h.slack.replay('interactive', body);
      assert.equal(r.status, 200);
      assert.equal(r.body, '', 'the modal closes without errors');
      const seen = h.slack.responses().length;
      await h.slack.slashCommand({
        command: '/threadmind',
        text: 'show',
        user: ADMIN,
        channel,
        enterpriseId: ORG,
        orgWideInstall: EMULATED[shape] === 'org-wide',
      });
      assert.match(await toldPrivately(seen), /Speak French\./);
    });
  }
});

function voteKind(m: SlackMessage): unknown {
  for (const b of (m.blocks ?? []) as { elements?: Json[] }[]) {
    for (const e of b.elements ?? [])
      if (e.action_id === 'tm:vote' || e.action_id === 'tm:down') return e.type;
  }
  return undefined;
}

function voteRef(m: SlackMessage): string | undefined {
  for (const b of (m.blocks ?? []) as { elements?: Json[] }[]) {
    for (const e of b.elements ?? []) {
      const up = (e.positive_button as { value?: string } | undefined)?.value;
      if (up) return up;
      if (e.action_id === 'tm:up') return e.value as string;
    }
  }
  return undefined;
}
