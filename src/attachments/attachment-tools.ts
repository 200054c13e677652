// The agent's file tools. Whose files they see comes from the turn scope (AsyncLocalStorage), never
// from their arguments: the model can only say what to look for, not where.
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { asCodedError } from '../llm/classify-error.ts';
import type { ModelEndpoint } from '../llm/model-endpoint.ts';
import type { Logger } from '../log/logger.ts';
import type { AnswerSource, SourcesArtifact } from '../model/answer-extras.ts';
import { currentScope, NO_SCOPE_MESSAGE } from '../scope/scope.ts';
import { dataBlock } from '../text/data-block.ts';
import type { AttachmentIndex } from './index/index.ts';
import type { Ingestor } from './ingest.ts';
import { NOTHING_SHARED, notCovered, passagesText, wholeFilesText } from './search-result-text.ts';
import type { AttachmentRecord, SearchHit } from './types.ts';

export interface AttachmentToolDeps {
  index: AttachmentIndex;
  ingestor: Ingestor;
  /** Undefined when no vision model is configured (the embedded text model is text-only). */
  vision: ModelEndpoint | undefined;
  maxHits: number;
  waitForIngestMs: number;
  visionTimeoutMs: number;
  log: Logger;
}

/** Where a file was shared, in words (the core names owners this way too). */
export { ownerLabel } from './search-result-text.ts';

function sourcesOf(hits: readonly SearchHit[]): AnswerSource[] {
  return hits.map((h) => ({
    kind: 'file',
    title: h.filename,
    ...(h.link !== undefined ? { link: h.link } : {}),
    ...(h.page !== undefined ? { page: h.page } : {}),
    ...(h.heading ? { section: h.heading } : {}),
  }));
}

/** A tool result with the sources it showed the model attached (see `answerSources` in the core). */
export function withSources(content: string, sources: AnswerSource[]): [string, SourcesArtifact] {
  return [content, { sources }];
}

/** `search_attachment(query)`: the turn's session, channel and project files, from the scope. */
export function searchAttachmentTool(d: AttachmentToolDeps) {
  return tool(
    async ({ query }) => {
      const scope = currentScope();
      if (!scope) return withSources(NO_SCOPE_MESSAGE, []);
      await d.ingestor.waitForOwners(scope.owners, d.waitForIngestMs);
      const files = (await d.index.listFiles(scope.owners)).filter((f) => f.kind !== 'image');
      if (files.length === 0) return withSources(NOTHING_SHARED, []);
      const hits = await d.index.search(scope.owners, query, d.maxHits);
      if (hits.length > 0) return withSources(passagesText(hits), sourcesOf(hits));
      const whole = await d.index.smallFiles(scope.owners);
      if (whole.length > 0) return withSources(wholeFilesText(query, whole), sourcesOf(whole));
      return withSources(notCovered(query, files), []);
    },
    {
      name: 'search_attachment',
      responseFormat: 'content_and_artifact',
      description:
        'Search the text of the files shared in this conversation (this thread, its channel, and files shared with the workspace) by meaning and by words. Returns whole passages with file name and page or section, or says NOT IN THE FILES when no passage answers the question: then tell the person the files do not cover it.',
      schema: z.object({
        query: z
          .string()
          .min(1)
          .describe(
            'The question or what to look for, in the words of the question or of the file',
          ),
      }),
    },
  );
}

function pickImage(
  images: AttachmentRecord[],
  filename: string | undefined,
): AttachmentRecord | string {
  if (images.length === 0) return 'There is no image in this conversation to look at.';
  if (!filename) return images[images.length - 1] as AttachmentRecord;
  const wanted = filename.trim().toLowerCase();
  const found =
    images.findLast((f) => f.filename.toLowerCase() === wanted) ??
    images.findLast((f) => f.filename.toLowerCase().includes(wanted));
  return (
    found ??
    `There is no image named "${filename}" here. Images available: ${images.map((f) => f.filename).join(', ')}.`
  );
}

/** `analyze_image(filename?, prompt)`: the named (or latest) image in scope, through the vision model. */
export function analyzeImageTool(d: AttachmentToolDeps) {
  return tool(
    async ({ filename, prompt }) => {
      const scope = currentScope();
      if (!scope) return NO_SCOPE_MESSAGE;
      await d.ingestor.waitForOwners(scope.owners, d.waitForIngestMs);
      const images = (await d.index.listFiles(scope.owners)).filter((f) => f.kind === 'image');
      const picked = pickImage(images, filename);
      if (typeof picked === 'string') return picked;
      const vision = d.vision;
      if (!vision) {
        return `No vision model is configured, so ${picked.filename} cannot be looked at: this bot runs a text-only model. Tell the person that image analysis needs a vision model (whoever runs threadmind can set LLM_VISION_BASE_URL), and answer from the other information you have.`;
      }
      const image = await d.ingestor.imageBytes(picked.owner, picked.fileId);
      if (!image)
        return `The image ${picked.filename} is no longer stored; ask the person to post it again.`;
      let signal: AbortSignal | undefined;
      try {
        const { chat } = await vision.resolve();
        signal = AbortSignal.timeout(d.visionTimeoutMs);
        const reply = await chat.invoke(
          [
            new HumanMessage({
              content: [
                { type: 'text', text: prompt },
                {
                  type: 'image_url',
                  image_url: { url: `data:${image.mime};base64,${image.data.toString('base64')}` },
                },
              ],
            }),
          ],
          { signal },
        );
        const text =
          typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
        return dataBlock('analyze_image', text, { file: picked.filename });
      } catch (err) {
        d.log.warn({ err, trace_id: scope.traceId, file: picked.filename }, 'vision model failed');
        const why =
          asCodedError(err, signal).code === 'model_timeout'
            ? 'it did not answer in time'
            : 'it could not be reached';
        return `I could not look at ${picked.filename}: the vision model ${why}. Answer from the other information you have, and say that the image could not be analysed.`;
      }
    },
    {
      name: 'analyze_image',
      description:
        'Look at an image shared in this conversation (a screenshot, photo or diagram) with the vision model and answer a question about it. Without a filename, the latest image is used.',
      schema: z.object({
        filename: z.string().optional().describe('The image file name, when there are several'),
        prompt: z.string().min(1).describe('What to find out from the image'),
      }),
    },
  );
}
