// What became of a delivery, an edit or an interaction: the core emits these (Conversation.events)
// once each is over, and tests, logs and the web page wait on them instead of on time.

/** How a turn ended. */
export type TurnOutcome =
  | { status: 'answered'; text: string; private?: boolean }
  | { status: 'failed'; code: string; userMessage: string }
  | { status: 'rejected'; reason: 'queue_full' | 'shutting_down' | 'withdrawn' };

/**
 * What became of a delivery. `deferred`: a platform's redelivery of a message whose first copy is
 * claimed but not queued yet; the adapter asks the platform to send it again later.
 */
export type Handled =
  | {
      status:
        | 'ignored'
        | 'duplicate'
        | 'hinted'
        | 'shared'
        | 'forgotten'
        | 'refused'
        | 'listed'
        | 'queued'
        | 'deferred'
        | 'confirming'
        | 'failed';
    }
  | { status: 'turn'; outcome: TurnOutcome };

export interface HandledEvent {
  platform: string;
  messageId: string;
  handled: Handled;
}

/** What became of an edit or a deletion: applied to stored history, or nothing held it. */
export interface ChangedEvent {
  platform: string;
  messageId: string;
  applied: boolean;
}

/**
 * What a flow step did: showed something and waits (`asked`), finished (`done`), was cancelled,
 * refused (not allowed, or a reference that is forged, altered, for another project or already
 * used), found its confirmation `expired`, or `failed`.
 */
export type InteractionOutcome =
  | 'asked'
  | 'done'
  | 'cancelled'
  | 'refused'
  | 'expired'
  | 'invalid'
  | 'duplicate'
  | 'failed';

export interface InteractedEvent {
  platform: string;
  flow: string;
  step: string;
  /** Who acted. */
  actorId: string;
  outcome: InteractionOutcome;
  traceId: string;
}
