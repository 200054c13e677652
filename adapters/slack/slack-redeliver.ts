// A Slack event this replica must not acknowledge yet: Slack's redelivery of a message whose first
// copy is claimed but not queued (its ingress may have died between the two). Acknowledged, the
// message would be lost with that ingress; answered 503, Slack sends it again later (it retries a
// failed event up to three times: at once, after a minute, after five), by when the first copy is
// queued (the repeat is acknowledged) or its claim has lapsed (the repeat is taken).
import { HTTPModuleFunctions, type ReceiverProcessEventErrorHandlerArgs } from '@slack/bolt';

/** The `code` Bolt's error handler sees (Bolt passes errors with a code through unchanged). */
const REDELIVER_LATER = 'threadmind_redeliver_later';

export class RedeliverLater extends Error {
  readonly code = REDELIVER_LATER;
  constructor(messageId: string) {
    super(
      `the first copy of message ${messageId} is not queued yet; Slack is asked to send it again`,
    );
    this.name = 'RedeliverLater';
  }
}

export function isRedeliverLater(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === REDELIVER_LATER;
}

/**
 * The HTTP receiver's `processEventErrorHandler`: a 503 for `RedeliverLater` (which the app's error
 * handler passes on), Bolt's own handling for anything else. Socket Mode acknowledges an event
 * before its listener runs: there the intake waits and tries the copy again (slack-intake.ts).
 */
export async function answerRedeliverLater(
  args: ReceiverProcessEventErrorHandlerArgs,
): Promise<boolean> {
  if (!isRedeliverLater(args.error))
    return HTTPModuleFunctions.defaultProcessEventErrorHandler(args);
  if (!args.response.headersSent) args.response.writeHead(503).end();
  return false;
}
