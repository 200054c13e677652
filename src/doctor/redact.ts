// Nothing the doctor prints, logs or serves may carry a secret: known secret values and the
// credentials part of any URL are replaced.

const MARK = '‹redacted›';

export function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  // Longest first, so a secret that contains another is replaced whole.
  const values = [
    ...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4)),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, `$1${MARK}@`);
    for (const v of values) out = out.split(v).join(MARK);
    return out;
  };
}
