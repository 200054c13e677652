// Files reaching the core: read for their owner, with a reaction on the message for each and,
// where the caller says so, a message for a failure. Sharing them with the whole project is a flow
// (interactions/share-flow.ts); this finds what a typed request shares.
import { type IngestOutcome, type Ingestor, incomingFile } from '../attachments/ingest.ts';
import type { Logger } from '../log/logger.ts';
import type { FileRef, InboundMessage } from '../model/incoming.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import type { Owner } from '../model/thread-ref.ts';
import { messages } from './messages.ts';
import type { ThreadOutput } from './thread-output.ts';

/** "@bot confirm share", alone in the message: the go-ahead for a share from a private place. */
export const CONFIRM_SHARE_REQUEST = /^(yes,?\s+)?confirm\s+(the\s+)?share[.!]*$/i;

export interface FileSharingDeps {
  ingestor: Ingestor | undefined;
  port(platform: string): PlatformPort;
}

export class FileSharing {
  private readonly d: FileSharingDeps;

  constructor(d: FileSharingDeps) {
    this.d = d;
  }

  /** Reads each file for `owner`, with a reaction on `messageId` for its outcome. */
  async ingestAll(
    owner: Owner,
    files: FileRef[],
    to: Destination,
    messageId: string,
    log: Logger,
    /** Where failures and notices are told; absent: the caller tells them (reactions still go on). */
    out: ThreadOutput | undefined,
  ): Promise<IngestOutcome[]> {
    const ingestor = this.d.ingestor;
    if (!ingestor) return [];
    const port = this.d.port(to.ref.platform);
    return Promise.all(
      files.map(async (file) => {
        const outcome = await ingestor.ingest(owner, incomingFile(file), () => file.download());
        await this.report(port, to, out, messageId, outcome).catch((err: unknown) =>
          log.error({ err }, 'could not tell the user about a file'),
        );
        return outcome;
      }),
    );
  }

  private async report(
    port: PlatformPort,
    to: Destination,
    out: ThreadOutput | undefined,
    messageId: string,
    outcome: IngestOutcome,
  ): Promise<void> {
    const react = (r: 'ok' | 'warning') => port.react(to, messageId, r).catch(() => undefined);
    if (outcome.status === 'failed') {
      await react('warning');
      await out?.post(messages.fileFailed(outcome.error.userMessage));
    } else if (outcome.status === 'ready') {
      await react('ok');
      if (outcome.notice) await out?.post(messages.fileNotice(outcome.notice));
    }
  }

  /**
   * What "share this with the workspace" shares: the message's own files, or else those of the
   * thread's first message.
   */
  async typedRequest(m: InboundMessage): Promise<{ id: string; files: FileRef[] }> {
    if ((m.files ?? []).length > 0) return { id: m.messageId, files: m.files ?? [] };
    for await (const first of this.d.port(m.ref.platform).readThread(m.to, { limit: 1 }))
      return { id: first.id, files: first.files };
    return { id: m.messageId, files: [] };
  }
}
