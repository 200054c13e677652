// What an answer carries besides its words: the sources it used and the handle people vote on.
// Tools attach sources to their results (a ToolMessage artifact); the core collects them per turn.
import type { ActionButton } from './interaction.ts';
import type { RenderedText } from './rendered-text.ts';

export type SourceFreshness = 'current' | 'stale' | 'unknown';

export interface AnswerSource {
  kind: 'file' | 'knowledge' | 'web';
  /** A file's name, a web page's title, or a knowledge document's address when it has no title. */
  title: string;
  /** A knowledge document's `source_uri`. */
  uri?: string;
  /** Where a person can open it: an http(s) address (a file's page on the platform, a web page). */
  link?: string;
  page?: number;
  section?: string;
  /** Knowledge documents only: `stale` is shown as outdated. */
  freshness?: SourceFreshness;
}

/** The artifact a tool result carries so the core can show what an answer used. */
export interface SourcesArtifact {
  sources: AnswerSource[];
}

export type Vote = 'up' | 'down';

/** What the last message of an answer gets: feedback buttons and the sources line. */
export interface AnswerFooter {
  /**
   * 👍 and 👎, in that order, with the feedback flow's signed references; absent: no buttons (the
   * turn could not be recorded).
   */
  votes?: readonly ActionButton[];
  sources: readonly AnswerSource[];
  /** The sources as one short line in the platform's format; absent when there are none. */
  sourcesText?: RenderedText;
}

/** `candidate` when it is an http(s) address a person can open; nothing else becomes a link. */
export function webLink(candidate: string | undefined): string | undefined {
  if (!candidate) return undefined;
  try {
    const u = new URL(candidate);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
