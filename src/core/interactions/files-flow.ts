// "Which files can you see?": the files a turn here could read (the thread's, its channel's, the
// project's), told only to the person who asked. Anyone may ask; it has no steps.
import { ownerLabel } from '../../attachments/attachment-tools.ts';
import type { AttachmentIndex } from '../../attachments/index/index.ts';
import { ownersOf, type ThreadRef } from '../../model/thread-ref.ts';
import { messages } from '../messages.ts';
import type { Flow, FlowContext, FlowResult, FlowStart } from './flow.ts';
import { OneShotFlow } from './one-shot.ts';

export class FilesFlow extends OneShotFlow implements Flow<never> {
  readonly name = 'files' as const;
  private readonly index: AttachmentIndex | undefined;

  /** Without an index no file is read, and the list is empty. */
  constructor(index: AttachmentIndex | undefined) {
    super();
    this.index = index;
  }

  async start(ctx: FlowContext, s: FlowStart): Promise<FlowResult> {
    const listed = await this.list(s.place.ref);
    return { show: [{ kind: 'notice', text: ctx.text(listed) }], outcome: 'done' };
  }

  /** The files a turn in `ref` could read. */
  private async list(ref: ThreadRef): Promise<string> {
    const files = this.index ? await this.index.listFiles(ownersOf(ref)) : [];
    if (files.length === 0) return messages.noFiles;
    return messages.fileList(
      files.map(
        (f) =>
          `${f.filename} (${f.kind}${f.pages ? `, ${f.pages} pages` : ''}, ${ownerLabel(f.owner)})`,
      ),
    );
  }
}
