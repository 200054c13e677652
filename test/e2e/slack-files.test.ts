// Files end to end through Bolt and the Slack emulator: bound to their thread or channel, searched
// by the agent's tool, images sent to the vision model without metadata, failures told in the thread.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import type { ScriptedReply } from '../emulators/openai/index.ts';
import {
  buildEncryptedPdf,
  buildHeadingsDocx,
  buildTextPdf,
  koreanEucKr,
} from '../fixtures/documents/index.ts';
import { jpegWithGpsAndOrientation } from '../fixtures/images/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { callsTo, sourcesCard, sourcesLine, waitForReply } from '../support/slack-helpers.ts';

type Req = { messages: { role: string; content: unknown }[] };

/** The model calls `name(args)` once, then answers with what the tool returned. */
function toolThenAnswer(name: string, args: (req: Req) => Record<string, unknown>) {
  return (req: Req): ScriptedReply => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
    return { toolCalls: [{ name, arguments: args(req) }] };
  };
}

describe('Slack files', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  async function waitForReaction(channel: string, ts: string, name: string) {
    await h.slack.waitFor(() =>
      callsTo(h.slack, 'reactions.add').find(
        (c) => c.args.channel === channel && c.args.timestamp === ts && c.args.name === name,
      ),
    );
  }

  test('a PDF dropped at a channel top level is found when someone asks in that channel', async () => {
    const pages = [
      'Welcome to the handbook.',
      'Chapter 2: expenses.',
      'Chapter 3: travel.',
      'Chapter 4: equipment.',
      'Chapter 5: Annual leave is 25 days per year, booked in the HR portal.',
    ];
    const file = h.slack.uploadFile({ name: 'handbook.pdf', bytes: await buildTextPdf(pages) });
    const drop = await h.slack.postUserMessage({
      channel: 'C80',
      user: 'U1',
      text: '',
      files: [file],
    });
    await waitForReaction('C80', drop.ts, 'white_check_mark');
    h.llm.setResponder(
      toolThenAnswer('search_attachment', () => ({ query: 'annual leave chapter 5' })),
    );
    const ask = await h.slack.postUserMessage({
      channel: 'C80',
      user: 'U2',
      text: `<@${h.slack.botUserId}> what does chapter 5 say about leave?`,
    });
    const replies = await waitForReply(h.slack, 'C80', ask.ts, 'TOOL RESULT');
    const text = replies.map((m) => m.text).join('\n');
    assert.match(text, /handbook\.pdf, page 5/);
    assert.match(text, /25 days/);
    // The answer shows what it used, under itself, as Slack's own sources: the file and its page,
    // linked to the file's page in Slack.
    const card = await sourcesCard(h.slack, 'C80', ask.ts);
    assert.deepEqual(card.sources[0], {
      type: 'url',
      url: file.permalink,
      text: 'handbook.pdf, p. 5',
    });
    assert.ok(card.sources.every((src) => src.url === file.permalink));
    const system = JSON.stringify(h.llm.requests.at(-1)?.body.messages[0]);
    assert.match(
      system,
      /handbook\.pdf \(PDF, 5 pages, posted in this channel\)/,
      'the system prompt lists the file',
    );
  });

  test('a workspace without task cards gets the sources as a line, and the answer still ends', async () => {
    const file = h.slack.uploadFile({
      name: 'rota.pdf',
      bytes: await buildTextPdf(['The on-call rota changes every Monday at 09:00.']),
    });
    const drop = await h.slack.postUserMessage({
      channel: 'C82',
      user: 'U1',
      text: '',
      files: [file],
    });
    await waitForReaction('C82', drop.ts, 'white_check_mark');
    h.slack.setTaskCardsAvailable(false);
    try {
      h.llm.setResponder(toolThenAnswer('search_attachment', () => ({ query: 'on-call rota' })));
      const ask = await h.slack.postUserMessage({
        channel: 'C82',
        user: 'U2',
        text: `<@${h.slack.botUserId}> when does the rota change?`,
      });
      await waitForReply(h.slack, 'C82', ask.ts, 'TOOL RESULT');
      assert.match(await sourcesLine(h.slack, 'C82', ask.ts), /^Sources: `rota\.pdf, p\. 1`/);
      const refused = callsTo(h.slack, 'chat.stopStream').filter(
        (c) => c.error === 'invalid_blocks',
      );
      assert.equal(refused.length, 1, 'one refusal, then the plainer footer');
    } finally {
      h.slack.setTaskCardsAvailable(true);
    }
  });

  test('a file posted in one thread is not found from another thread', async () => {
    const { ts: rootA } = await h.slack.postUserMessage({
      channel: 'C81',
      user: 'U1',
      text: `<@${h.slack.botUserId}> thread A`,
    });
    await waitForReply(h.slack, 'C81', rootA, 'TOOL RESULT');
    const secret = h.slack.uploadFile({
      name: 'secret.pdf',
      bytes: await buildTextPdf(['The launch code is PELICAN-42.']),
    });
    const post = await h.slack.postUserMessage({
      channel: 'C81',
      user: 'U1',
      thread_ts: rootA,
      text: '',
      files: [secret],
    });
    await waitForReaction('C81', post.ts, 'white_check_mark');
    h.llm.setResponder(toolThenAnswer('search_attachment', () => ({ query: 'launch code' })));
    await h.slack.postUserMessage({
      channel: 'C81',
      user: 'U1',
      thread_ts: rootA,
      text: 'what is the launch code?',
    });
    await waitForReply(h.slack, 'C81', rootA, 'PELICAN-42');
    const { ts: rootB } = await h.slack.postUserMessage({
      channel: 'C81',
      user: 'U2',
      text: `<@${h.slack.botUserId}> what is the launch code?`,
    });
    const replies = await waitForReply(h.slack, 'C81', rootB, 'TOOL RESULT');
    assert.doesNotMatch(replies.map((m) => m.text).join('\n'), /PELICAN/);
  });

  test('a screenshot in a thread reaches the vision model rotated and without its metadata', async () => {
    const shot = h.slack.uploadFile({
      name: 'error.jpg',
      bytes: await jpegWithGpsAndOrientation(),
    });
    h.vision.setResponder(() => ({ content: 'The dialog says: ERROR 504 gateway timeout.' }));
    h.llm.setResponder(
      toolThenAnswer('analyze_image', () => ({ prompt: 'What error does the screenshot show?' })),
    );
    const ask = await h.slack.postUserMessage({
      channel: 'C82',
      user: 'U1',
      text: `<@${h.slack.botUserId}> what is the error in this screenshot?`,
      files: [shot],
    });
    const replies = await waitForReply(h.slack, 'C82', ask.ts, 'ERROR 504');
    assert.ok(replies.length >= 1);
    const visionReq = h.vision.requests.at(-1)?.body as Req;
    const parts = visionReq.messages[0]?.content as { type: string; image_url?: { url: string } }[];
    const url = parts.find((p) => p.type === 'image_url')?.image_url?.url ?? '';
    assert.match(url, /^data:image\/(jpeg|png);base64,/);
    const meta = await sharp(Buffer.from(url.split(',')[1] ?? '', 'base64')).metadata();
    assert.equal(meta.exif, undefined, 'no EXIF (and so no GPS) reaches the model');
    assert.equal(meta.xmp, undefined);
    assert.ok((meta.height ?? 0) > (meta.width ?? 0), 'orientation 6 was applied (portrait)');
  });

  test('"share this with the workspace" makes a file findable from any channel of that workspace only', async () => {
    const doc = h.slack.uploadFile({ name: 'policies.docx', bytes: await buildHeadingsDocx() });
    const share = await h.slack.postUserMessage({
      channel: 'C83',
      user: 'U1',
      text: `<@${h.slack.botUserId}> share this with the workspace`,
      files: [doc],
    });
    await waitForReply(h.slack, 'C83', share.ts, 'with the whole workspace');
    h.llm.setResponder((req: Req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'search_attachment', arguments: { query: 'search feature ship' } }],
      };
    });
    const here = await h.slack.postUserMessage({
      channel: 'C84',
      user: 'U2',
      text: `<@${h.slack.botUserId}> when do we ship search?`,
    });
    assert.match(
      (await waitForReply(h.slack, 'C84', here.ts, 'TOOL RESULT')).map((m) => m.text).join(''),
      /policies\.docx, section "Project Plan" \(shared with the workspace\)/,
    );
    const elsewhere = await h.slack.postUserMessage({
      channel: 'C84',
      user: 'U9',
      teamId: 'T0OTHER001',
      text: `<@${h.slack.botUserId}> when do we ship search?`,
    });
    assert.doesNotMatch(
      (await waitForReply(h.slack, 'C84', elsewhere.ts, 'TOOL RESULT')).map((m) => m.text).join(''),
      /policies\.docx/,
    );
  });

  test('sharing from a private channel says who will then see the file and shares only on "confirm share" from the same person', async () => {
    h.llm.setResponder((req: Req) => {
      const last = req.messages.at(-1);
      if (last?.role === 'tool') return { content: `TOOL RESULT: ${String(last.content)}` };
      return {
        toolCalls: [{ name: 'search_attachment', arguments: { query: 'quarzelite budget' } }],
      };
    });
    const searchFromElsewhere = async () => {
      const q = await h.slack.postUserMessage({
        channel: 'C91',
        user: 'U2',
        text: `<@${h.slack.botUserId}> what is the quarzelite budget?`,
      });
      return (await waitForReply(h.slack, 'C91', q.ts, 'TOOL RESULT')).map((m) => m.text).join('');
    };
    h.slack.setChannelMembers('G90', ['U1', 'U3', h.slack.botUserId]);
    const file = h.slack.uploadFile({
      name: 'quarzelite-plan.txt',
      bytes: Buffer.from('The quarzelite budget is 42 thousand.\n'),
    });
    const share = await h.slack.postUserMessage({
      channel: 'G90',
      user: 'U1',
      text: `<@${h.slack.botUserId}> share this with the workspace`,
      files: [file],
    });
    const asked = (await waitForReply(h.slack, 'G90', share.ts, 'confirm share'))
      .map((m) => m.text)
      .join('');
    assert.match(asked, /quarzelite-plan\.txt is in a private channel that 2 people can see/);
    assert.match(asked, /everyone in the workspace can ask me about it/);
    assert.doesNotMatch(await searchFromElsewhere(), /quarzelite-plan\.txt/, 'not shared yet');

    // Someone else cannot confirm it.
    const other = await h.slack.postUserMessage({
      channel: 'G90',
      user: 'U3',
      thread_ts: share.ts,
      text: `<@${h.slack.botUserId}> confirm share`,
    });
    await waitForReply(h.slack, 'G90', share.ts, 'no share of yours waiting');
    await h.handled(other.ts, 2);
    assert.doesNotMatch(await searchFromElsewhere(), /quarzelite-plan\.txt/);

    await h.slack.postUserMessage({
      channel: 'G90',
      user: 'U1',
      thread_ts: share.ts,
      text: `<@${h.slack.botUserId}> confirm share`,
    });
    await waitForReply(
      h.slack,
      'G90',
      share.ts,
      'Shared quarzelite-plan.txt with the whole workspace',
    );
    assert.match(
      await searchFromElsewhere(),
      /quarzelite-plan\.txt.*\(shared with the workspace\)/,
    );
  });

  test('sharing from a direct message asks first too, naming that only the asker sees it now', async () => {
    const file = h.slack.uploadFile({ name: 'dm-notes.txt', bytes: Buffer.from('notes\n') });
    const share = await h.slack.postUserMessage({
      channel: 'D93',
      user: 'U1',
      channelType: 'im',
      text: 'share this with the workspace',
      files: [file],
    });
    const asked = (await waitForReply(h.slack, 'D93', share.ts, 'confirm share'))
      .map((m) => m.text)
      .join('');
    assert.match(asked, /dm-notes\.txt is in this direct message, where only you can see it/);
  });

  test('Korean text in EUC-KR is read and searchable', async () => {
    const file = h.slack.uploadFile({ name: 'notice-ko.txt', bytes: koreanEucKr() });
    const { ts: root } = await h.slack.postUserMessage({
      channel: 'C85',
      user: 'U1',
      text: `<@${h.slack.botUserId}> 공지 확인`,
    });
    await waitForReply(h.slack, 'C85', root, 'TOOL RESULT');
    const post = await h.slack.postUserMessage({
      channel: 'C85',
      user: 'U1',
      thread_ts: root,
      text: '',
      files: [file],
    });
    await waitForReaction('C85', post.ts, 'white_check_mark');
    h.llm.setResponder(toolThenAnswer('search_attachment', () => ({ query: '휴가 규정' })));
    await h.slack.postUserMessage({
      channel: 'C85',
      user: 'U1',
      thread_ts: root,
      text: '휴가 규정은?',
    });
    const replies = await waitForReply(h.slack, 'C85', root, /notice-ko\.txt/);
    assert.match(replies.map((m) => m.text).join(''), /휴가/);
  });

  test('a password-protected PDF gets a clear reply in the thread where it was posted', async () => {
    const file = h.slack.uploadFile({ name: 'report.pdf', bytes: buildEncryptedPdf() });
    const post = await h.slack.postUserMessage({
      channel: 'C86',
      user: 'U1',
      text: '',
      files: [file],
    });
    await waitForReply(h.slack, 'C86', post.ts, 'report.pdf is password-protected');
    await waitForReaction('C86', post.ts, 'warning');
  });

  test('a download redirected to another origin is refused and the token is not sent there', async () => {
    const file = h.slack.uploadFile({
      name: 'notes.txt',
      bytes: Buffer.from('plain notes'),
      redirect: 'other-origin',
    });
    const post = await h.slack.postUserMessage({
      channel: 'C87',
      user: 'U1',
      text: '',
      files: [file],
    });
    await waitForReply(h.slack, 'C87', post.ts, "couldn't download notes.txt");
    assert.deepEqual(h.slack.otherOriginAuthHeaders(), []);
  });
});
