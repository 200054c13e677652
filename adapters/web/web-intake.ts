// What the page sends, for the core: a message (or a command), a dropped file, an action on one
// of the bot's cards. Each is checked here and handed over; answers reach the page through the
// transcript.
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { Config } from '../../src/config/schema.ts';
import { webCommandList } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { webTypedCommand } from '../../src/core/web-typed-command.ts';
import { refuse, sendJson } from '../../src/log/http-app.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { FileRef, Intent } from '../../src/model/incoming.ts';
import type { Transcript } from './transcript.ts';
import type { WebDeliveries } from './web-deliveries.ts';
import { bodyWithin } from './web-http.ts';
import { actionOf, type WebInteractions } from './web-interactions.ts';
import { WEB_PERSON, webRef } from './web-port.ts';

/** Longest message a person may send. */
const MAX_TEXT = 20_000;
const MAX_JSON_BYTES = 256 * 1024;

const CLIENT_ID = /^[\w-]{1,100}$/;

function size(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${Math.round(bytes / (1024 * 1024))} MB`
    : `${Math.round(bytes / 1024)} KB`;
}

/** A file name as the page sent it, without any directory part. */
function cleanName(raw: string | null): string | undefined {
  const name = (raw ?? '').split(/[\\/]/).at(-1)?.trim() ?? '';
  const control = [...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (!name || name.length > 255 || control) return undefined;
  return name;
}

/** A message's words and the page's id for the send, refused when too long or malformed. */
function checkSend(text: string, clientId: unknown): asserts clientId is string | undefined {
  if (text.length > MAX_TEXT)
    refuse(413, `That message is too long: at most ${MAX_TEXT} characters.`);
  if (clientId !== undefined && (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)))
    refuse(400, 'clientId must be up to 100 letters, digits, - or _.');
}

export interface WebIntakeDeps {
  config: Config;
  core: Conversation;
  log: Logger;
  transcript: Transcript;
  interactions: WebInteractions;
  deliveries: WebDeliveries;
}

export class WebIntake {
  private readonly d: WebIntakeDeps;

  constructor(d: WebIntakeDeps) {
    this.d = d;
  }

  /** The JSON object the page sent; a refusal it can read otherwise. */
  private async readJson(c: Context): Promise<Record<string, unknown>> {
    if (!/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
      refuse(415, 'Send the message as JSON (content-type: application/json).');
    const body = await bodyWithin(c, MAX_JSON_BYTES);
    if (!body) refuse(413, `That message is too long: at most ${MAX_TEXT} characters.`);
    try {
      const v: unknown = JSON.parse(new TextDecoder().decode(body));
      if (typeof v === 'object' && v !== null && !Array.isArray(v))
        return v as Record<string, unknown>;
    } catch {
      // answered below
    }
    refuse(400, 'The message is not valid JSON: send {"text": "…"}.');
  }

  /** `{messageId, ref, values?}`: a button pressed or a form sent on one of the bot's cards. */
  async action(c: Context, threadId: string): Promise<Response> {
    const action = actionOf(await this.readJson(c));
    if (!action) refuse(400, 'Send {"messageId": "…", "ref": "…", "values": {…}}.');
    return sendJson(c, await this.d.interactions.act(threadId, action));
  }

  async message(c: Context, threadId: string): Promise<Response> {
    const { text, clientId } = await this.readJson(c);
    if (typeof text !== 'string' || text.trim() === '') refuse(400, 'Type a message first.');
    checkSend(text, clientId);
    const typed = webTypedCommand(text);
    if (typed && 'unknown' in typed)
      refuse(400, `There is no command ${typed.unknown}. The commands are ${webCommandList()}.`);
    const { message, repeated } = await this.d.transcript.addPersonMessage(threadId, {
      text,
      clientId,
    });
    if (!typed || 'intent' in typed)
      this.deliver(threadId, message.id, text.trim(), clientId, typed?.intent);
    else if (!repeated)
      this.d.interactions
        .start(threadId, typed.flow, typed.values, message.id)
        .catch((err: unknown) => this.d.log.error({ err, platform: 'web' }, 'web command failed'));
    return sendJson(c, { messageId: message.id }, 202);
  }

  async file(c: Context, threadId: string): Promise<Response> {
    const name = cleanName(c.req.query('name') ?? null);
    if (!name) refuse(400, 'Give the file a name (?name=report.pdf).');
    const clientId = c.req.query('clientId');
    const text = (c.req.query('text') ?? '').trim();
    checkSend(text, clientId);
    const limit = this.d.config.attachments.maxFileBytes;
    const bytes = await bodyWithin(c, limit);
    if (!bytes) refuse(413, `${name} is larger than the ${size(limit)} limit for files.`);
    if (bytes.length === 0) refuse(400, `${name} is empty.`);
    const { message, repeated } = await this.d.transcript.addPersonMessage(threadId, {
      text,
      clientId,
      files: [{ id: randomUUID(), name, size: bytes.length }],
    });
    const files: FileRef[] = (message.files ?? []).map((f) => ({
      id: f.id,
      name: f.name,
      size: f.size,
      download: async () => new Uint8Array(bytes),
    }));
    const ref = webRef(threadId);
    const traceId = randomUUID();
    if (!repeated || !message.filesDone) {
      this.d.core.receiveFiles({
        ref,
        to: { ref, context: {} },
        where: 'session',
        messageId: message.id,
        text,
        files,
        traceId,
      });
    }
    if (text) this.deliver(threadId, message.id, text, clientId, undefined, files);
    // Nothing to answer: the outcome of the file is all the thread gets.
    else this.d.core.skipped('web', message.id);
    return sendJson(c, { messageId: message.id }, 202);
  }

  /** Hands a person's message to the core; the answer reaches the page through the transcript. */
  private deliver(
    threadId: string,
    messageId: string,
    text: string,
    clientId: string | undefined,
    intent: Intent | undefined,
    files?: FileRef[],
  ): void {
    const ref = webRef(threadId);
    const traceId = randomUUID();
    this.d.deliveries.handing(threadId, messageId);
    this.d.core
      .receiveMessage({
        ref,
        to: { ref, context: {} },
        principal: WEB_PERSON,
        text: intent ? '' : text,
        messageId,
        receivedAt: Date.now(),
        traceId,
        addressed: 'direct',
        dedupe: [`web:msg:${messageId}`, ...(clientId ? [`web:client:${clientId}`] : [])],
        ...(intent ? { intent } : {}),
        ...(files ? { files } : {}),
      })
      .catch((err: unknown) =>
        this.d.log.error({ err, trace_id: traceId, platform: 'web' }, 'web message failed'),
      );
  }
}
