// A message was edited or deleted. In a conversation the bot follows, stored history takes the
// new text or loses the message (a summary that covered it is made again before it is used).
import type { Logger } from '../log/logger.ts';
import type { ChangedEvent } from '../model/handled.ts';
import type { MessageChange } from '../model/incoming.ts';
import type { SessionState } from './session-state.ts';

export async function applyMessageChange(
  d: { state: SessionState; lockWaitMs: number; log: Logger; emit: (e: ChangedEvent) => void },
  c: MessageChange,
): Promise<boolean> {
  const emit = (applied: boolean) => {
    d.emit({ platform: c.ref.platform, messageId: c.messageId, applied });
    return applied;
  };
  const log = d.log;
  try {
    if (!(await d.state.isParticipating(c.ref))) return emit(false);
    // Under the session's lock: a turn running now would otherwise save over the change.
    const lock = await d.state.lock(c.ref, d.lockWaitMs);
    try {
      const applied = await d.state.applyChange(c.ref, c.messageId, c.text);
      if (applied) log.info({ deleted: c.text === undefined }, 'thread message change applied');
      return emit(applied);
    } finally {
      await lock.release().catch((err: unknown) => log.warn({ err }, 'lock release failed'));
    }
  } catch (err) {
    log.error({ err }, 'could not apply a message change');
    return emit(false);
  }
}
