// The checklist as an operator reads it: one line per check, its fix under it.
import type { CheckResult, CheckStatus } from '../model/check-result.ts';

export const SYMBOL: Record<CheckStatus, string> = { ok: '✓', warn: '⚠', fail: '✗', skip: '–' };

export function formatLine(r: CheckResult, width = r.name.length): string {
  const head = `${SYMBOL[r.status]} ${r.name.padEnd(width)}  ${r.summary}`;
  if (!r.fix) return head;
  const indent = ' '.repeat(width + 4);
  return `${head}\n${indent}fix: ${r.fix.split('\n').join(`\n${indent}     `)}`;
}

export function formatChecklist(results: readonly CheckResult[], elapsedMs: number): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  const tally = [
    `${count('ok')} ok`,
    `${count('warn')} warning${count('warn') === 1 ? '' : 's'}`,
    `${count('fail')} failed`,
    ...(count('skip') > 0 ? [`${count('skip')} not checked`] : []),
  ].join(', ');
  return [
    'threadmind doctor',
    '',
    ...results.map((r) => formatLine(r, width)),
    '',
    `${tally}; the checks took ${elapsedMs < 1000 ? `${Math.round(elapsedMs)} ms` : `${(elapsedMs / 1000).toFixed(1)} s`}`,
    '',
  ].join('\n');
}
