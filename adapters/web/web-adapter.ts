// The local web chat: a page, a small JSON API and one event stream per thread, on the bot's HTTP
// port. The adapter translates what the page sends into the core's InboundMessages (a message, a
// command, dropped files; web-intake.ts) and WebPort writes the core's replies into the thread's
// transcript, which streams every change to the page. One project (`local`); each thread is a
// session. This file puts the pieces together and routes each request.
import type http from 'node:http';
import type { Config } from '../../src/config/schema.ts';
import { webCommands } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import type { Logger } from '../../src/log/logger.ts';
import { Transcript, type TranscriptStore } from './transcript.ts';
import { WebDeliveries } from './web-deliveries.ts';
import { WebGuard } from './web-guard.ts';
import { securityHeaders, sendError, sendJson } from './web-http.ts';
import { WebIntake } from './web-intake.ts';
import { WebInteractions } from './web-interactions.ts';
import { WebPages } from './web-pages.ts';
import { WebPort } from './web-port.ts';
import { WebStreams } from './web-streams.ts';

export interface WebAdapterDeps {
  config: Config;
  core: Conversation;
  log: Logger;
  /** The bot's key-value store: the transcript lives there. */
  store: TranscriptStore;
}

const THREAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class WebAdapter {
  readonly port: WebPort;
  readonly transcript: Transcript;
  private readonly d: WebAdapterDeps;
  private readonly guard: WebGuard;
  private readonly pages: WebPages;
  private readonly streams: WebStreams;
  private readonly deliveries: WebDeliveries;
  private readonly intake: WebIntake;

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
    this.pages = new WebPages(this.guard);
    this.streams = new WebStreams(this.transcript);
    const interactions = new WebInteractions(core, this.transcript);
    core.attach(
      this.port,
      {
        projectNoun: 'workspace',
        settingsAdmins: 'the person who runs this bot (in its config/ files)',
        updateIntervalMs: config.web.updateIntervalMs,
        nativeStreaming: true,
        thinkingText: 'is thinking…',
      },
      interactions,
    );
    this.deliveries = new WebDeliveries({ core, transcript: this.transcript, log });
    this.intake = new WebIntake({
      config,
      core,
      log,
      transcript: this.transcript,
      interactions,
      deliveries: this.deliveries,
    });
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
    this.deliveries.stop();
    this.streams.end();
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
    if (path === '/login') return this.pages.login(req, res);
    const token = this.guard.token(req);
    if (!token.ok) {
      if (api) return sendError(res, token.status, token.reason);
      return this.pages.loginNeeded(res);
    }
    if (!api) return this.pages.asset(req, res, path);

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
    if (sub === 'events' && req.method === 'GET') return this.streams.events(req, res, thread.id);
    if (sub === 'messages' && req.method === 'POST')
      return this.intake.message(req, res, thread.id);
    if (sub === 'files' && req.method === 'POST') return this.intake.file(req, res, thread.id, url);
    if (sub === 'actions' && req.method === 'POST') return this.intake.action(req, res, thread.id);
    return sendError(res, 404, 'No such page.');
  }

  private async listThreads(res: http.ServerResponse): Promise<void> {
    const threads = [...(await this.transcript.list())].sort((a, b) => b.updatedAt - a.updatedAt);
    sendJson(res, 200, {
      bot: this.d.config.agent.name,
      maxFileBytes: this.d.config.attachments.maxFileBytes,
      commands: webCommands(),
      threads,
    });
  }
}
