// `npm run eval -- bot`: a labelled set through the whole bot. The set's documents are posted as
// files into one Slack thread (download → extract → ingest → embed, each file's ✅ awaited), then
// the bot is mentioned there with every question. The chat model is the OpenAI emulator, scripted
// to call search_attachment with the question verbatim and to answer with exactly what the tool
// returned: what is measured is what the bot hands a model, not what a model makes of it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Handled } from '../../src/model/handled.ts';
import type { ScriptedReply } from '../../test/emulators/openai/index.ts';
import type { Harness } from '../../test/support/harness.ts';
import { callsTo } from '../../test/support/slack-helpers.ts';
import { type BotOutcome, type BotScores, scoreBotAnswer, scoreBotRun } from './bot-scoring.ts';
import type { EvalSet } from './labels.ts';

export interface BotSetRun {
  set: string;
  documents: number;
  /** From the first file's post to the last file's ✅. */
  ingestMs: number;
  outcomes: BotOutcome[];
  scores: BotScores;
}

export interface BotEvalOptions {
  /** How long one file may take to become searchable, and one question to be answered. */
  fileTimeoutMs: number;
  turnTimeoutMs: number;
}

type Req = { messages: { role: string; content: unknown }[] };
const textOf = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));

/** The scripted model: search with the asked question, then relay the tool's text verbatim. */
class RelayModel {
  question: string | undefined;
  toolText: string | undefined;

  respond = (req: Req): ScriptedReply => {
    const last = req.messages.at(-1);
    if (last?.role === 'tool') {
      this.toolText = textOf(last.content);
      return { content: this.toolText };
    }
    const asked = this.question;
    if (last?.role === 'user' && asked !== undefined && textOf(last.content).includes(asked)) {
      return { toolCalls: [{ name: 'search_attachment', arguments: { query: asked } }] };
    }
    // Anything else the bot asks (the thread's opening, a summary) gets a plain reply.
    return { content: 'Noted.' };
  };
}

/**
 * What became of a mention: 'answered' when a turn answered it, else what the bot did instead
 * (e.g. 'ignored, shared': a question that reads as "share … with the team" starts the share flow).
 */
async function handledAs(h: Harness, ts: string, timeoutMs: number): Promise<string> {
  // A mention arrives twice (message and app_mention): one of the two runs the turn.
  let seen: Handled[] = [];
  for (let deliveries = 1; deliveries <= 2; deliveries++) {
    seen = (await h.handled(ts, deliveries, timeoutMs)).map((e) => e.handled);
    const turn = seen.find((e) => e.status === 'turn');
    if (turn?.status === 'turn') {
      return turn.outcome.status === 'answered' ? 'answered' : `turn ${turn.outcome.status}`;
    }
  }
  return seen.map((e) => e.status).join(', ');
}

async function postFiles(
  h: Harness,
  set: EvalSet,
  channel: string,
  root: string,
  timeoutMs: number,
): Promise<number> {
  const started = performance.now();
  const posts: { file: string; ts: string }[] = [];
  for (const d of set.documents) {
    const bytes = await readFile(path.join(set.documentsDir, d.file));
    const file = h.slack.uploadFile({ name: d.file, bytes: new Uint8Array(bytes) });
    const post = await h.slack.postUserMessage({
      channel,
      user: 'U1',
      thread_ts: root,
      text: '',
      files: [file],
    });
    posts.push({ file: d.file, ts: post.ts });
  }
  for (const p of posts) {
    const reacted = (name: string) =>
      callsTo(h.slack, 'reactions.add').find(
        (c) => c.args.timestamp === p.ts && c.args.name === name,
      );
    const seen = await h.slack
      .waitFor(() => reacted('white_check_mark') ?? reacted('warning'), timeoutMs)
      .catch(() => undefined);
    if (seen?.args.name !== 'white_check_mark') {
      throw new Error(`${set.name}: ${p.file} did not become searchable (no ✅ in the thread)`);
    }
  }
  return performance.now() - started;
}

/** Posts the set's files into a new thread of `channel` and asks every question there. */
export async function runBotSet(
  h: Harness,
  set: EvalSet,
  channel: string,
  o: BotEvalOptions,
): Promise<BotSetRun> {
  const model = new RelayModel();
  h.llm.setResponder(model.respond);
  const opening = await h.slack.postUserMessage({
    channel,
    user: 'U1',
    text: `<@${h.slack.botUserId}> the documents of the ${set.name} set follow in this thread.`,
  });
  const opened = await handledAs(h, opening.ts, o.turnTimeoutMs);
  if (opened !== 'answered')
    throw new Error(`${set.name}: the opening was not answered: ${opened}`);
  const ingestMs = await postFiles(h, set, channel, opening.ts, o.fileTimeoutMs);
  const outcomes: BotOutcome[] = [];
  for (const q of set.questions) {
    model.question = q.question;
    model.toolText = undefined;
    const started = performance.now();
    const post = await h.slack.postUserMessage({
      channel,
      user: 'U2',
      thread_ts: opening.ts,
      text: `<@${h.slack.botUserId}> ${q.question}`,
    });
    const handled = await handledAs(h, post.ts, o.turnTimeoutMs);
    const ms = performance.now() - started;
    // No tool result (no turn, or no search): scored as neither "not in the files" nor reached.
    outcomes.push(scoreBotAnswer(q, model.toolText ?? '', { ms, handled }));
  }
  model.question = undefined;
  return {
    set: set.name,
    documents: set.documents.length,
    ingestMs,
    outcomes,
    scores: scoreBotRun(outcomes),
  };
}
