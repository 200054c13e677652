// Cutting a label or a text to a platform's limit, in code points (as Slack and Discord count), so
// an emoji is never cut in half; a cut text ends in an ellipsis.

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
