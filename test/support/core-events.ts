// Waits on what the core says it did (never on time): an edit or deletion taken in.
import type { Conversation } from '../../src/core/conversation.ts';
import type { ChangedEvent } from '../../src/model/handled.ts';

/** Resolves with the core's verdict on the change of `messageId`; subscribe before causing it. */
export function changeTakenIn(core: Conversation, messageId: string, timeoutMs = 10_000) {
  return new Promise<ChangedEvent>((resolve, reject) => {
    const timer = setTimeout(() => {
      core.events.off('changed', on);
      reject(new Error(`no change of ${messageId} was handled within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (e: ChangedEvent) => {
      if (e.messageId !== messageId) return;
      clearTimeout(timer);
      core.events.off('changed', on);
      resolve(e);
    };
    core.events.on('changed', on);
  });
}
