// The sources an answer used, from its turn's tool results (each tool attaches what it returned
// as an artifact), and the one short line every platform shows under the answer.
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { AnswerSource, SourcesArtifact } from '../model/answer-extras.ts';
import { clip } from '../text/clip.ts';
import { surfaceTexts } from './surface-texts.ts';

/** More than this many sources is noise under a chat answer; the rest are counted. */
export const MAX_SOURCES_SHOWN = 6;

function isSource(x: unknown): x is AnswerSource {
  const s = x as Partial<AnswerSource> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    (s.kind === 'file' || s.kind === 'knowledge' || s.kind === 'web') &&
    typeof s.title === 'string'
  );
}

function keyOf(s: AnswerSource): string {
  const id = s.kind === 'web' ? (s.link ?? s.title) : (s.uri ?? s.title);
  return [s.kind, id, s.page ?? '', s.section ?? ''].join('\u0000');
}

/** Every source the turn's tools returned, first seen first, each once. */
export function answerSources(added: readonly BaseMessage[]): AnswerSource[] {
  const out = new Map<string, AnswerSource>();
  for (const m of added) {
    if (!ToolMessage.isInstance(m)) continue;
    const sources = (m.artifact as Partial<SourcesArtifact> | undefined)?.sources;
    if (!Array.isArray(sources)) continue;
    for (const s of sources) if (isSource(s) && !out.has(keyOf(s))) out.set(keyOf(s), s);
  }
  return [...out.values()];
}

/** A web page's site after its title (` — example.com`), unless the title already is it. */
function hostOf(link: string | undefined, title: string): string {
  const host = URL.canParse(link ?? '') ? new URL(link ?? '').hostname.replace(/^www\./, '') : '';
  return host === '' || title.includes(host) ? '' : ` — ${host}`;
}

/** One source in words: `report.pdf, p. 3` or `kb://adr/12 (outdated)`. */
export function sourceLabel(s: AnswerSource): string {
  const where = [
    s.page !== undefined ? `p. ${s.page}` : '',
    s.section ? `“${s.section}”` : '',
  ].filter(Boolean);
  const name =
    s.kind === 'knowledge'
      ? (s.uri ?? s.title)
      : s.kind === 'web'
        ? `${s.title}${hostOf(s.link, s.title)}`
        : s.title;
  const mark =
    s.freshness === 'stale' ? ' (outdated)' : s.freshness === 'unknown' ? ' (date unknown)' : '';
  return `${name}${where.length ? `, ${where.join(', ')}` : ''}${mark}`;
}

/** The sources line (Markdown), or undefined when the answer used none. */
export function sourcesMarkdown(sources: readonly AnswerSource[]): string | undefined {
  if (sources.length === 0) return undefined;
  const shown = sources
    .slice(0, MAX_SOURCES_SHOWN)
    .map((s) => `\`${sourceLabel(s).replace(/`/g, "'")}\``);
  const more = sources.length - shown.length;
  return `Sources: ${shown.join(' · ')}${more > 0 ? ` · and ${more} more` : ''}`;
}

/**
 * The sources as links, for a platform's own sources list (Slack's task card): those with an
 * address, as many as are shown, and one line naming those without one and counting the rest
 * (`Also: kb://runbook and 3 more`); undefined when none has an address. `labelMax`: the longest
 * label the platform shows (the full one stays in the answer's text).
 */
export function linkedSources(
  sources: readonly AnswerSource[],
  labelMax: number,
): { links: { url: string; label: string }[]; others?: string } | undefined {
  const label = (s: AnswerSource) => clip(sourceLabel(s), labelMax);
  const links = sources.flatMap((s) =>
    s.link === undefined ? [] : [{ url: s.link, label: label(s) }],
  );
  if (links.length === 0) return undefined;
  const shown = links.slice(0, MAX_SOURCES_SHOWN);
  const unlinked = sources.filter((s) => s.link === undefined).slice(0, MAX_SOURCES_SHOWN);
  const more = sources.length - shown.length - unlinked.length;
  const others = [
    unlinked.length > 0 ? surfaceTexts.sourcesAlso(unlinked.map(label)) : '',
    more > 0 ? surfaceTexts.sourcesMore(more) : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { links: shown, ...(others ? { others } : {}) };
}
