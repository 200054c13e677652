// The local web chat: a page, a small JSON API and one event stream per thread, on the bot's HTTP
// port. The adapter translates what the page sends into the core's InboundMessages (a message, a
// command, dropped files) and WebPort writes the core's replies into the thread's transcript,
// which streams every change to the page. One project (`local`); each thread is a session.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type http from 'node:http';
import type { Config } from '../../src/config/schema.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { FORMAT_FIELD } from '../../src/core/interactions/export-flow.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { HandledEvent } from '../../src/model/handled.ts';
import type { FileRef, Intent } from '../../src/model/incoming.ts';
import type { FlowName } from '../../src/model/interaction.ts';
import { LOGIN_CSP, loginPage } from './login-page.ts';
import { Transcript, type TranscriptStore, type WebEvent } from './transcript.ts';
import { WebGuard } from './web-guard.ts';
import {
  BodyTooLarge,
  closeAfter,
  readBody,
  securityHeaders,
  sendError,
  sendJson,
} from './web-http.ts';
import { actionOf, WebInteractions } from './web-interactions.ts';
import { WEB_PERSON, WebPort, webRef } from './web-port.ts';

export interface WebAdapterDeps {
  config: Config;
  core: Conversation;
  log: Logger;
  /** The bot's key-value store: the transcript lives there. */
  store: TranscriptStore;
}

/** Longest message a person may send. */
const MAX_TEXT = 20_000;
const MAX_JSON_BYTES = 256 * 1024;
/** A comment on idle streams, so proxies and browsers keep them open. */
const KEEPALIVE_MS = 20_000;

const COMMANDS: Record<string, Intent> = {
  summarize: 'summarize',
  summarise: 'summarize',
  forget: 'forget',
  files: 'files',
};
/** Commands that begin a flow (its card comes back in the thread). */
const FLOWS: Record<string, FlowName> = {
  erase: 'erase',
  'feedback-export': 'export',
  settings: 'settings',
};
const COMMAND_LIST = '/summarize, /forget, /files, /settings, /erase and /feedback-export';

const STATIC: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'markdown.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
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

export class WebAdapter {
  readonly port: WebPort;
  readonly transcript: Transcript;
  private readonly d: WebAdapterDeps;
  private readonly guard: WebGuard;
  private readonly assets = new Map<string, { body: Buffer; type: string }>();
  private readonly streams = new Set<http.ServerResponse>();
  /** Deliveries handed to the core and not yet handled, by message, with their thread. */
  private readonly awaiting = new Map<string, { thread: string; count: number }>();
  private readonly onHandled: (e: HandledEvent) => void;
  private readonly onFiles: (e: { platform: string; messageId: string }) => void;
  private readonly interactions: WebInteractions;

  constructor(d: WebAdapterDeps) {
    this.d = d;
    const { config, core, log } = d;
    this.transcript = new Transcript(d.store, 'web:local', (err) =>
      log.error({ err, platform: 'web' }, 'could not store the web transcript'),
    );
    this.port = new WebPort(this.transcript);
    this.guard = new WebGuard({
      exposed: config.webChat?.exposed ?? false,
      token: config.secrets.webAuthToken,
    });
    const dir = new URL('./public/', import.meta.url);
    for (const [name, type] of Object.entries(STATIC))
      this.assets.set(name, { body: readFileSync(new URL(name, dir)), type });
    this.assets.set('', {
      body: readFileSync(new URL('index.html', dir)),
      type: 'text/html; charset=utf-8',
    });
    this.interactions = new WebInteractions(core, this.transcript);
    core.attach(
      this.port,
      {
        projectNoun: 'workspace',
        settingsAdmins: 'the person who runs this bot (in its config/ files)',
        updateIntervalMs: config.web.updateIntervalMs,
        nativeStreaming: true,
        thinkingText: 'is thinking…',
      },
      this.interactions,
    );
    this.onHandled = (e) => {
      if (e.platform !== 'web') return;
      const waiting = this.awaiting.get(e.messageId);
      if (waiting === undefined) return;
      const { thread } = waiting;
      if (--waiting.count === 0) this.awaiting.delete(e.messageId);
      // The thread's status ends once nothing sent there is still being answered.
      if (![...this.awaiting.values()].some((w) => w.thread === thread))
        this.transcript.setStatus(thread, null);
      if (e.handled.status === 'duplicate') return;
      // Files shared with the workspace are read by the request itself, not in the background.
      if (e.handled.status === 'shared') this.filesDone(thread, e.messageId);
      const status = e.handled.status === 'turn' ? e.handled.outcome.status : e.handled.status;
      this.transcript.emit(thread, { type: 'handled', messageId: e.messageId, status });
    };
    this.onFiles = (e) => {
      if (e.platform !== 'web') return;
      const thread = this.transcript.threadOfMessage(e.messageId);
      if (thread !== undefined) this.filesDone(thread, e.messageId);
    };
    core.events.on('handled', this.onHandled);
    core.events.on('files', this.onFiles);
  }

  /** The page stops showing the message's files as being read. */
  private filesDone(thread: string, messageId: string): void {
    this.transcript
      .update(thread, messageId, (m) => {
        m.filesDone = true;
      })
      .catch((err: unknown) => this.d.log.error({ err }, 'could not mark files read'));
  }

  /** The HTTP handler for every path the bot's server does not answer itself. */
  readonly handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    this.route(req, res).catch((err: unknown) => {
      this.d.log.error({ err, platform: 'web' }, 'web request failed');
      if (!res.headersSent)
        sendError(res, 500, 'Something went wrong; the details are in the log.');
      else res.end();
    });
  };

  /** Ends the page's event streams (they would hold the server open) and stores what is left. */
  async stop(): Promise<void> {
    this.d.core.events.off('handled', this.onHandled);
    this.d.core.events.off('files', this.onFiles);
    for (const s of this.streams) s.end();
    this.streams.clear();
    await this.transcript.flush();
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    securityHeaders(res);
    const url = new URL(req.url ?? '/', 'http://web.invalid');
    const path = url.pathname;
    const api = path.startsWith('/api/');
    const place = this.guard.place(req);
    if (!place.ok) return sendError(res, place.status, place.reason);
    if (req.method === 'POST') {
      const origin = this.guard.origin(req);
      if (!origin.ok) return sendError(res, origin.status, origin.reason);
    }
    if (path === '/login') return this.login(req, res);
    const token = this.guard.token(req);
    if (!token.ok) {
      if (api) return sendError(res, token.status, token.reason);
      securityHeaders(res, LOGIN_CSP);
      res.writeHead(401, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(loginPage());
      return;
    }
    if (!api) return this.asset(req, res, path);

    const parts = path.split('/').slice(2);
    const [collection, threadId, sub, ...rest] = parts;
    if (collection !== 'threads' || rest.length > 0) return sendError(res, 404, 'No such page.');
    if (threadId === undefined || threadId === '') {
      if (req.method === 'GET') return this.listThreads(res);
      if (req.method === 'POST') {
        const thread = await this.transcript.createThread();
        return sendJson(res, 201, { thread });
      }
      return sendError(res, 405, 'Use GET or POST here.');
    }
    const thread = THREAD_ID.test(threadId) ? await this.transcript.thread(threadId) : undefined;
    if (!thread) return sendError(res, 404, 'There is no such thread. Start a new one.');
    if (sub === undefined && req.method === 'GET') {
      return sendJson(res, 200, {
        thread,
        messages: await this.transcript.messages(thread.id),
        status: this.transcript.status(thread.id),
      });
    }
    if (sub === 'events' && req.method === 'GET') return this.events(req, res, thread.id);
    if (sub === 'messages' && req.method === 'POST') return this.message(req, res, thread.id);
    if (sub === 'files' && req.method === 'POST') return this.file(req, res, thread.id, url);
    if (sub === 'actions' && req.method === 'POST') return this.action(req, res, thread.id);
    return sendError(res, 404, 'No such page.');
  }

  private asset(req: http.IncomingMessage, res: http.ServerResponse, path: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, 405, 'Use GET here.');
      return;
    }
    const name = path === '/' ? '' : path.startsWith('/static/') ? path.slice(8) : undefined;
    const asset = name === undefined ? undefined : this.assets.get(name);
    if (!asset) {
      sendError(res, 404, 'No such page.');
      return;
    }
    res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  private async login(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    securityHeaders(res, LOGIN_CSP);
    const page = (status: number, error?: string) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(loginPage(error));
    };
    if (req.method === 'GET') return page(this.guard.needsToken ? 200 : 404);
    if (req.method !== 'POST') return sendError(res, 405, 'Use GET or POST here.');
    let body: Buffer;
    try {
      body = await readBody(req, 4096);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      closeAfter(req, res);
      return page(413, 'That is far too long for a token.');
    }
    const given = new URLSearchParams(body.toString('utf8')).get('token') ?? '';
    const cookie = this.guard.login(given);
    if (!cookie) return page(401, 'That token is not right.');
    res.writeHead(303, { location: '/', 'set-cookie': cookie, 'cache-control': 'no-store' });
    res.end();
  }

  private async listThreads(res: http.ServerResponse): Promise<void> {
    const threads = [...(await this.transcript.list())].sort((a, b) => b.updatedAt - a.updatedAt);
    sendJson(res, 200, {
      bot: this.d.config.agent.name,
      maxFileBytes: this.d.config.attachments.maxFileBytes,
      threads,
    });
  }

  /** Server-sent events: the thread as it is now, then every change. */
  private async events(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    threadId: string,
  ): Promise<void> {
    const messages = await this.transcript.messages(threadId);
    const thread = await this.transcript.thread(threadId);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    const send = (e: WebEvent | { type: 'snapshot'; [k: string]: unknown }) =>
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    res.write('retry: 2000\n\n');
    send({ type: 'snapshot', thread, messages, status: this.transcript.status(threadId) });
    const unlisten = this.transcript.listen(threadId, send);
    const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    this.streams.add(res);
    const close = () => {
      clearInterval(keepalive);
      unlisten();
      this.streams.delete(res);
    };
    req.once('close', close);
    res.once('close', close);
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
  private async action(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    threadId: string,
  ): Promise<void> {
    const body = await this.readJson(req, res);
    if (!body) return;
    const action = actionOf(body);
    if (!action) return sendError(res, 400, 'Send {"messageId": "…", "ref": "…", "values": {…}}.');
    sendJson(res, 200, await this.interactions.act(threadId, action));
  }

  private async message(
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
    // `/name`, or a flow's `/name word` (`/feedback-export json`).
    const command = /^\/(\S+)(?:\s+(\S+))?\s*$/.exec(text.trim());
    const flow = FLOWS[(command?.[1] ?? '').toLowerCase()];
    const word = command?.[2];
    if (command && !flow && word === undefined) {
      intent = COMMANDS[(command[1] ?? '').toLowerCase()];
      if (!intent)
        return sendError(
          res,
          400,
          `There is no command ${command[0]}. The commands are ${COMMAND_LIST}.`,
        );
    }
    const { message, repeated } = await this.transcript.addPersonMessage(threadId, {
      text,
      clientId,
    });
    sendJson(res, 202, { messageId: message.id });
    if (!flow) this.deliver(threadId, message.id, text.trim(), clientId, intent);
    else if (!repeated)
      this.interactions
        .start(threadId, flow, word === undefined ? {} : { [FORMAT_FIELD]: word.toLowerCase() })
        .catch((err: unknown) => this.d.log.error({ err, platform: 'web' }, 'web command failed'));
  }

  private async file(
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
    const { message, repeated } = await this.transcript.addPersonMessage(threadId, {
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
    const waiting = this.awaiting.get(messageId);
    if (waiting) waiting.count++;
    else this.awaiting.set(messageId, { thread: threadId, count: 1 });
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
