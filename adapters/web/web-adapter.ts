// The local web chat: a page, a small JSON API and one event stream per thread, on the bot's HTTP
// port. The adapter translates what the page sends into the core's InboundMessages (a message, a
// command, dropped files; web-intake.ts) and WebPort writes the core's replies into the thread's
// transcript, which streams every change to the page. One project (`local`); each thread is a
// session. This file puts the pieces together and routes each request.
import { type Context, Hono, type Next } from 'hono';
import type { Config } from '../../src/config/schema.ts';
import { webCommands } from '../../src/core/commands.ts';
import type { Conversation } from '../../src/core/conversation.ts';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import { type HttpEnv, httpApp, refuse, sendJson } from '../../src/log/http-app.ts';
import type { Logger } from '../../src/log/logger.ts';
import { Transcript, type TranscriptStore } from './transcript.ts';
import { WebDeliveries } from './web-deliveries.ts';
import { WebGuard } from './web-guard.ts';
import { pageHeaders } from './web-http.ts';
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
  readonly streams: WebStreams;
  private readonly deliveries: WebDeliveries;
  private readonly intake: WebIntake;
  /** Every path the bot's server does not answer itself: the page, the login, the API. */
  readonly http: Hono<HttpEnv>;

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
    this.streams = new WebStreams(this.transcript, {
      bounds: config.web.stream,
      onDrop: (threadId) =>
        log.warn(
          { platform: 'web', threadId },
          'web chat page cut off: it read its event stream too slowly (it reconnects to a snapshot)',
        ),
    });
    const interactions = new WebInteractions(core, this.transcript);
    core.attach(
      this.port,
      {
        ...surfaceTexts.web,
        updateIntervalMs: config.web.updateIntervalMs,
        nativeStreaming: true,
        thinkingText: surfaceTexts.thinking,
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
    this.http = this.routes(log.child({ platform: 'web' }));
  }

  /** Ends the page's event streams (they would hold the server open) and stores what is left. */
  async stop(): Promise<void> {
    this.deliveries.stop();
    this.streams.end();
    await this.transcript.flush();
  }

  private routes(log: Logger): Hono<HttpEnv> {
    const app = httpApp({
      log,
      errorBody: (error) => ({ error }),
      failure: 'Something went wrong; the details are in the log.',
    });
    app.use(pageHeaders);
    app.use(async (c, next) => {
      const place = this.guard.place(c);
      if (!place.ok) refuse(place.status, place.reason);
      if (c.req.method === 'POST') {
        const origin = this.guard.origin(c);
        if (!origin.ok) refuse(origin.status, origin.reason);
      }
      await next();
    });
    this.pages.login(app);
    app.use(async (c, next) => {
      const token = this.guard.token(c);
      if (token.ok) return next();
      if (c.req.path.startsWith('/api/')) refuse(token.status, token.reason);
      return this.pages.loginNeeded(c);
    });
    app.route('/api/threads', this.api());
    app.all('/api/*', () => refuse(404, 'No such page.'));
    this.pages.assets(app);
    return app;
  }

  /** `/api/threads…`: the threads, one thread, its events, messages, files and actions. */
  private api(): Hono<HttpEnv> {
    const api = new Hono<HttpEnv>();
    api.get('/', (c) => this.listThreads(c));
    api.post('/', async (c) => sendJson(c, { thread: await this.transcript.createThread() }, 201));
    api.all('/', () => refuse(405, 'Use GET or POST here.'));
    // `/:id/*` covers `/:id` itself too.
    api.use('/:id/*', (c, next) => this.known(c, next));
    api.get('/:id', async (c) => {
      const id = c.req.param('id');
      return sendJson(c, {
        thread: await this.transcript.thread(id),
        messages: await this.transcript.messages(id),
        status: this.transcript.status(id),
      });
    });
    api.get('/:id/events', (c) => this.streams.events(c, c.req.param('id')));
    api.post('/:id/messages', (c) => this.intake.message(c, c.req.param('id')));
    api.post('/:id/files', (c) => this.intake.file(c, c.req.param('id')));
    api.post('/:id/actions', (c) => this.intake.action(c, c.req.param('id')));
    return api;
  }

  /** A thread's routes answer only for a thread that exists. */
  private async known(c: Context, next: Next): Promise<void> {
    const id = c.req.param('id') ?? '';
    if (!THREAD_ID.test(id) || !(await this.transcript.thread(id)))
      refuse(404, 'There is no such thread. Start a new one.');
    await next();
  }

  private async listThreads(c: Context): Promise<Response> {
    const threads = [...(await this.transcript.list())].sort((a, b) => b.updatedAt - a.updatedAt);
    return sendJson(c, {
      bot: this.d.config.agent.name,
      maxFileBytes: this.d.config.attachments.maxFileBytes,
      commands: webCommands(),
      threads,
    });
  }
}
