/**
 * How cli-table3 measures a cell, without setting it up for plain text. Its string-width (v4) builds
 * an emoji expression of several kilobytes on every call and loads three modules on the first;
 * for plain text it only ever returns the length. The build gives cli-table3 this function instead
 * of its string-width (build.mjs), and a test checks it against the real one character by character.
 */

/**
 * Text cli-table3's string-width measures as its length: printable ASCII, Latin-1 letters (À–ÿ)
 * and the ellipsis svc cuts cells with. Not © and ®, which it counts as emoji (two columns).
 */
export const TABLE_PLAIN = /^[\x20-\x7E\xC0-\xFF\u2026]*$/;

/** cli-table3's width of `text`: its length when plain, else what `measure` (the real one) says. */
export function tableWidth(measure: (text: string) => number): (text: string) => number {
  return (text) => (typeof text === 'string' && TABLE_PLAIN.test(text) ? text.length : measure(text));
}
