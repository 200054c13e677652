// What the page sends, for the core: a message (or a command), a dropped file, an action on one
// of the bot's cards. Each is checked here and handed over; answers reach the page through the
// transcript.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Config } from '../../src/config/schema.ts';
import { webCommand, webCommandList } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { FORMAT_FIELD } from '../../src/core/interactions/export-flow.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { FileRef, Intent } from '../../src/model/incoming.ts';
import type { Transcript } from './transcript.ts';
import type { WebDeliveries } from './web-deliveries.ts';
import { BodyTooLarge, closeAfter, readBody, sendError, sendJson } from './web-http.ts';
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

  private async readJson(
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<Record<string, unknown> | undefined> {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      sendError(res, 415, 'Send the message as JSON (content-type: application/json).');
      return undefined;
    }
    let body: Buffer;
    try {
      body = await readBody(req, MAX_JSON_BYTES);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      closeAfter(req, res);
      sendError(res, 413, `That message is too long: at most ${MAX_TEXT} characters.`);
      return undefined;
    }
    try {
      const v: unknown = JSON.parse(body.toString('utf8'));
      if (typeof v === 'object' && v !== null && !Array.isArray(v))
        return v as Record<string, unknown>;
    } catch {
      // answered below
    }
    sendError(res, 400, 'The message is not valid JSON: send {"text": "…"}.');
    return undefined;
  }

  /** `{messageId, ref, values?}`: a button pressed or a form sent on one of the bot's cards. */
  async action(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    threadId: string,
  ): Promise<void> {
    const body = await this.readJson(req, res);
    if (!body) return;
    const action = actionOf(body);
    if (!action) return sendError(res, 400, 'Send {"messageId": "…", "ref": "…", "values": {…}}.');
    sendJson(res, 200, await this.d.interactions.act(threadId, action));
  }

  async message(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    threadId: string,
  ): Promise<void> {
    const body = await this.readJson(req, res);
    if (!body) return;
    const { text, clientId } = body;
    if (typeof text !== 'string' || text.trim() === '')
      return sendError(res, 400, 'Type a message first.');
    if (text.length > MAX_TEXT)
      return sendError(res, 413, `That message is too long: at most ${MAX_TEXT} characters.`);
    if (clientId !== undefined && (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)))
      return sendError(res, 400, 'clientId must be up to 100 letters, digits, - or _.');
    let intent: Intent | undefined;
    // `/name`, or a flow's `/name word` (`/feedback-export json`); the names are the core's table's.
    const command = /^\/(\S+)(?:\s+(\S+))?\s*$/.exec(text.trim());
    const spec = command ? webCommand(command[1] ?? '') : undefined;
    const flow = spec && 'flow' in spec.starts ? spec.starts.flow : undefined;
    const word = command?.[2];
    if (command && !flow && word === undefined) {
      intent = spec && 'intent' in spec.starts ? spec.starts.intent : undefined;
      if (!intent)
        return sendError(
          res,
          400,
          `There is no command ${command[0]}. The commands are ${webCommandList()}.`,
        );
    }
    const { message, repeated } = await this.d.transcript.addPersonMessage(threadId, {
      text,
      clientId,
    });
    sendJson(res, 202, { messageId: message.id });
    if (!flow) this.deliver(threadId, message.id, text.trim(), clientId, intent);
    else if (!repeated)
      this.d.interactions
        .start(
          threadId,
          flow,
          word === undefined ? {} : { [FORMAT_FIELD]: word.toLowerCase() },
          message.id,
        )
        .catch((err: unknown) => this.d.log.error({ err, platform: 'web' }, 'web command failed'));
  }

  async file(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    threadId: string,
    url: URL,
  ): Promise<void> {
    const name = cleanName(url.searchParams.get('name'));
    if (!name) return sendError(res, 400, 'Give the file a name (?name=report.pdf).');
    const clientId = url.searchParams.get('clientId') ?? undefined;
    if (clientId !== undefined && !CLIENT_ID.test(clientId))
      return sendError(res, 400, 'clientId must be up to 100 letters, digits, - or _.');
    const text = (url.searchParams.get('text') ?? '').trim();
    if (text.length > MAX_TEXT)
      return sendError(res, 413, `That message is too long: at most ${MAX_TEXT} characters.`);
    const limit = this.d.config.attachments.maxFileBytes;
    let bytes: Buffer;
    try {
      bytes = await readBody(req, limit);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      closeAfter(req, res);
      return sendError(res, 413, `${name} is larger than the ${size(limit)} limit for files.`);
    }
    if (bytes.length === 0) return sendError(res, 400, `${name} is empty.`);
    const { message, repeated } = await this.d.transcript.addPersonMessage(threadId, {
      text,
      clientId,
      files: [{ id: randomUUID(), name, size: bytes.length }],
    });
    sendJson(res, 202, { messageId: message.id });
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
