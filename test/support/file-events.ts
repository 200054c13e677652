// The core's `files` signal: emitted once the files of one delivery were read (or refused) and
// their outcome told in the thread. A message's `handled` event comes earlier (files are read in
// the background), so tests about files wait for this one instead of for time.
import type { Conversation } from '../../src/core/conversation.ts';

export interface FileEvents {
  /** Resolves once `count` deliveries of the message finished with their files. */
  done(messageId: string, count?: number, timeoutMs?: number): Promise<void>;
}

export function watchFileEvents(core: Conversation): FileEvents {
  const seen = new Map<string, number>();
  const waiters = new Set<() => void>();
  core.events.on('files', (e: { messageId: string }) => {
    seen.set(e.messageId, (seen.get(e.messageId) ?? 0) + 1);
    for (const w of [...waiters]) w();
  });
  return {
    done(messageId, count = 1, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if ((seen.get(messageId) ?? 0) < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `message ${messageId}: files of ${seen.get(messageId) ?? 0} of ${count} deliveries done after ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}
