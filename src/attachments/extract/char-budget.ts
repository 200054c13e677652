// Collects sections up to the maxChars limit, so a huge document costs bounded memory downstream.
import type { ExtractedSection } from '../types.ts';

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export class SectionCollector {
  readonly sections: ExtractedSection[] = [];
  readonly maxChars: number;
  private used = 0;
  private cut = false;

  constructor(maxChars: number) {
    this.maxChars = Math.max(0, maxChars);
  }

  /** Characters kept so far. */
  get chars(): number {
    return this.used;
  }

  /** True once a section had to be cut or dropped for the limit. */
  get full(): boolean {
    return this.cut;
  }

  /** Adds a section, cut to what is left of the budget. Blank sections are skipped. */
  add(section: ExtractedSection): void {
    if (section.text.trim() === '') return;
    if (this.cut) return;
    const room = this.maxChars - this.used;
    if (section.text.length <= room) {
      this.sections.push(section);
      this.used += section.text.length;
      return;
    }
    this.cut = true;
    let end = room;
    // Never leave half of a surrogate pair at the end.
    const last = section.text.charCodeAt(end - 1);
    if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
    const text = section.text.slice(0, end);
    if (text.trim() === '') return;
    this.sections.push({ ...section, text });
    this.used += text.length;
  }
}

/** The `partial` sentence for a document cut by the character limit. */
export function charsPartial(maxChars: number, totalChars: number): string {
  return `only the first ${formatCount(maxChars)} of ${formatCount(totalChars)} characters were read`;
}
