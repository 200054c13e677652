// What a flow is: a start (a command, a shortcut, a typed request) and named steps (the buttons and
// forms it showed). It takes {actor, place, action, values} and returns what to show plus what it
// changed; the engine (engine.ts) checks the reference, the pending state and the flow's own
// permission rule before every step, so a flow only decides and words its outcome.
import type { Logger } from '../../log/logger.ts';
import type { InteractionOutcome } from '../../model/handled.ts';
import type {
  AboutMessage,
  ActionButton,
  Actor,
  FlowName,
  FormValues,
  Place,
  Shown,
} from '../../model/interaction.ts';
import type { PlatformPort } from '../../model/platform-port.ts';
import type { PlatformSettings } from '../../model/platform-settings.ts';
import type { RenderedText } from '../../model/rendered-text.ts';
import type { PendingFlow } from './pending-flows.ts';

/** How a flow was begun: from a typed message in a conversation, or from a platform interaction. */
export type Via = 'message' | 'interaction';

export interface FlowStart {
  actor: Actor;
  place: Place;
  via: Via;
  /** The message the flow is about, with its files. */
  message?: AboutMessage;
  values: FormValues;
  /** An id for the request that sorts after the message (see `InteractionStart.requestId`). */
  requestId?: string;
  traceId: string;
  log: Logger;
}

export interface FlowStep<D> {
  actor: Actor;
  /** Where the step was taken (the pending flow's own place is `pending.place`). */
  place: Place | undefined;
  via: Via;
  values: FormValues;
  pending: PendingFlow<D>;
  /**
   * Takes the pending flow for good before acting: false when another click (on any replica) took
   * it first, and the flow then does nothing.
   */
  take(): Promise<boolean>;
  log: Logger;
}

export interface FlowResult {
  show: Shown[];
  outcome: InteractionOutcome;
  /** What the step changed, for the log (files shared, keys erased). */
  changed?: Readonly<Record<string, unknown>>;
}

/** What the engine lends a flow: the platform, its words, and a way to wait for the next step. */
export interface FlowContext {
  port: PlatformPort;
  settings: PlatformSettings;
  /** Whether the platform shows buttons and forms (else only their words reach the person). */
  interactive: boolean;
  botName: string;
  /** Markdown → the platform's text, neutralised (one message's worth). */
  text(markdown: string): RenderedText;
  now(): number;
  /**
   * Keeps `data` in the Store until the confirmation expires and returns a signed reference for
   * each step; `alias`: a typed reply from the same person in the same channel may continue it.
   */
  wait<D>(o: {
    place: Place;
    actorId: string;
    data: D;
    steps: readonly string[];
    alias?: boolean;
    /** How long it waits, when not a confirmation's time (an answer's votes). */
    ttlMs?: number;
  }): Promise<{ refs: Record<string, string>; expiresAt: number }>;
  /** The references of a pending flow's steps again (to show its confirmation once more). */
  refsOf(pending: PendingFlow, steps: readonly string[]): Promise<Record<string, string>>;
}

export interface Flow<D = unknown> {
  readonly name: FlowName;
  /**
   * Its buttons sit under a message that is not its own (an answer): nothing it says, an expiry
   * included, takes that message's place.
   */
  readonly leavesMessage?: boolean;
  /** Buttons it puts under a message the core posts (an answer's 👍/👎), keeping `data` for them. */
  buttons?(ctx: FlowContext, place: Place, data: D): Promise<ActionButton[]>;
  /**
   * Whether the actor may take this step (the start: `pending` undefined, `place` where it is
   * begun). Asked every time.
   */
  may(
    ctx: FlowContext,
    actor: Actor,
    step: string,
    pending: PendingFlow<D> | undefined,
    place?: Place,
  ): Promise<boolean>;
  /** What someone who may not is told, privately. */
  refusal(ctx: FlowContext, step: string, pending: PendingFlow<D> | undefined): string;
  /** What a step whose confirmation expired says. */
  expired(ctx: FlowContext): string;
  start(ctx: FlowContext, s: FlowStart): Promise<FlowResult>;
  step(ctx: FlowContext, step: string, s: FlowStep<D>): Promise<FlowResult>;
}
