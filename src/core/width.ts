/**
 * How many terminal columns text takes, exactly as string-width measures it, and cutting text to a
 * width. Nearly everything svc draws is plain text (ASCII, Latin letters, dashes, quotes, `…`):
 * there every character is its own grapheme of width 1, so the width is the length. Only other text
 * is handed to string-width, whose set-up (a grapheme segmenter and large Unicode-property regular
 * expressions) costs more than the rest of a start-up: it is loaded on first use (docs/performance.md).
 */
import { createRequire } from 'node:module';

let measure: ((text: string) => number) | undefined;

/** string-width, loaded (synchronously, the package from node_modules) the first time text needs it. */
function stringWidth(text: string): number {
  measure ??= (createRequire(import.meta.url)('string-width') as typeof import('string-width')).default;
  return measure(text);
}

/**
 * Characters that are one column wide and never join a neighbour into one grapheme (no controls,
 * combining or spacing marks, joiners, format characters, Hangul jamo, regional indicators, wide
 * or emoji-presentation characters): printable ASCII, Latin-1 (without the soft hyphen U+00AD),
 * Latin Extended-A and -B, the dashes, quotes, bullets and ellipsis of U+2010–U+2027, and €.
 * test/unit/width.test.ts checks every one of them against string-width and the segmenter.
 */
export function isNarrowChar(code: number): boolean {
  if (code < 0x7f) return code >= 0x20;
  if (code <= 0x24f) return code >= 0xa0 && code !== 0xad;
  return (code >= 0x2010 && code <= 0x2027) || code === 0x20ac;
}

/** True when every character of `text` is narrow (see isNarrowChar): its width is its length. */
export function isNarrowText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isNarrowChar(text.charCodeAt(i))) return false;
  return true;
}

/** Columns `text` takes on a terminal: string-width's answer, without loading it for plain text. */
export function textWidth(text: string): number {
  return isNarrowText(text) ? text.length : stringWidth(text);
}

/** Made on first use: building one is measurable at start-up. */
let segmenter: Intl.Segmenter | undefined;

/** Cuts text to at most `width` terminal columns, ending in `…` when cut; whole characters only. */
export function truncate(text: string, width: number): string {
  if (isNarrowText(text)) return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
  if (stringWidth(text) <= width) return text;
  let result = '';
  let used = 0;
  segmenter ??= new Intl.Segmenter();
  for (const { segment } of segmenter.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    result += segment;
    used += w;
  }
  return `${result}…`;
}

/** A line broken into lines of at most `width` columns, at spaces where it can, else mid-word. */
export function wrapLine(text: string, width: number): string[] {
  if (textWidth(text) <= width || width < 1) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/(?<= )/)) {
    if (line !== '' && textWidth(line + word.trimEnd()) > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += word;
    while (textWidth(line.trimEnd()) > width) {
      let head = '';
      segmenter ??= new Intl.Segmenter();
      for (const { segment } of segmenter.segment(line)) {
        // One character wider than the line (a wide character in one column) still moves on.
        if (head !== '' && textWidth(head + segment) > width) break;
        head += segment;
        if (textWidth(head) >= width) break;
      }
      lines.push(head);
      line = line.slice(head.length);
    }
  }
  if (line.trimEnd() !== '') lines.push(line.trimEnd());
  return lines;
}
