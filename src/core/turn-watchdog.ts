import { ThreadmindError } from '../model/errors.ts';

/**
 * A turn's two deadlines: the whole turn, and silence from the model (no token, no tool result for
 * `idleMs`). Either aborts `signal` with a coded error the user is shown; so does a lost session
 * lock, passed in as `also`.
 */
export class TurnWatchdog {
  private readonly controller = new AbortController();
  private readonly turnTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  readonly signal: AbortSignal;

  constructor(o: { turnMs: number; idleMs: number; also: AbortSignal }) {
    this.idleMs = o.idleMs;
    this.signal = AbortSignal.any([this.controller.signal, o.also]);
    this.turnTimer = setTimeout(
      () =>
        this.controller.abort(
          new ThreadmindError(
            'turn_timeout',
            `turn exceeded ${o.turnMs} ms`,
            `I could not finish within ${Math.round(o.turnMs / 1000)} seconds, so I stopped. Please try a narrower question.`,
          ),
        ),
      o.turnMs,
    );
  }

  /**
   * The model is expected to speak within `idleMs` from now. Called per streamed chunk, so an armed
   * timer is restarted in place (`refresh`) rather than replaced by a new one.
   */
  armIdle(): void {
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(
      () =>
        this.controller.abort(
          new ThreadmindError(
            'model_timeout',
            `no output from the model for ${this.idleMs} ms`,
            'The model did not respond in time. Please try again in a minute.',
          ),
        ),
      this.idleMs,
    );
  }

  /** Tools are running: silence from the model is expected. */
  pauseIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  dispose(): void {
    clearTimeout(this.turnTimer);
    this.pauseIdle();
  }
}
