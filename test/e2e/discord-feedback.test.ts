// How 👍/👎 look under Discord answers, through unmodified discord.js and the emulator: an answer
// that used a PDF ends with its short sources line under the text and one row of two buttons whose
// custom_ids are signed action references. Voting, the reason modal, a second vote and the export
// are the interaction contract's (test/contract/feedback-contract.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DiscordMessage } from '../emulators/discord/index.ts';
import { buildTextPdf } from '../fixtures/documents/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

type Req = { messages: { role: string; content: unknown }[] };

describe('vote buttons under Discord answers', () => {
  let h: Harness;
  let d: NonNullable<Harness['discord']>;
  before(async () => {
    h = await startHarness({ discord: true });
    d = h.discord as NonNullable<Harness['discord']>;
  });
  after(() => h.close());

  const customIds = (m: DiscordMessage) =>
    (m.components ?? []).flatMap((row) =>
      ((row as { components?: { custom_id?: string }[] }).components ?? []).map(
        (c) => c.custom_id ?? '',
      ),
    );

  test('an answer that used a PDF ends with a short sources line and 👍/👎', async () => {
    const guild = d.guilds[0] as (typeof d.guilds)[number];
    const channel = guild.channels[0]?.id ?? '';
    const alice = d.users[0]?.id ?? '';
    const pdf = await buildTextPdf(['Intro.', 'Refunds take 14 days.']);
    h.llm.setResponder((req: Req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: 'Refunds take 14 days (policy.pdf, page 2).' };
      return { toolCalls: [{ name: 'search_attachment', arguments: { query: 'refunds' } }] };
    });
    await d.userMessage({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      content: 'the policy',
      attachments: [{ filename: 'policy.pdf', bytes: pdf }],
    });
    await d.slashCommand({
      guildId: guild.id,
      channelId: channel,
      userId: alice,
      name: 'ask',
      options: [{ name: 'question', type: 3, value: 'how long do refunds take?' }],
    });
    const thread = await d.waitFor(() =>
      d.threads().find((t) => t.name === 'how long do refunds take?'),
    );
    const answer = await d.waitFor(() =>
      d.messages(thread.id).findLast((m) => m.author.id === d.botUserId && customIds(m).length > 0),
    );
    assert.match(answer.content, /Refunds take 14 days/);
    assert.match(answer.content, /Sources: `policy\.pdf, p\. 2`/);
    const [up, down] = customIds(answer);
    assert.match(up ?? '', /^t1\.feedback\.up\./);
    assert.match(down ?? '', /^t1\.feedback\.down\./);
    assert.ok((up ?? '').length <= 100, 'within a custom_id');
  });
});
