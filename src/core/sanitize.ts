/**
 * The one way untrusted text (from the API, a file or the network) reaches a terminal.
 *
 * Control characters would let a server drive the person's terminal: ESC starts sequences that set
 * the window title (OSC 0), plant hyperlinks (OSC 8) or clear the screen; U+009B is a one-byte CSI;
 * CR and backspace overwrite what was printed; bidi controls reorder what is shown. Each is replaced
 * by a visible escape (`\x1b`, `\u009b`) so the person sees that it was there. JSON never passes
 * through here (it is escaped as JSON), nor does CSV written to a pipe or file: both keep data exact.
 */

// C0 controls except tab and line feed, DEL, C1 controls, and the bidi embedding/override/isolate
// marks (U+202A–U+202E, U+2066–U+2069) plus the invisible direction marks (U+200E, U+200F, U+061C).
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// The same, with line feed and tab: for one-line contexts (a table cell, a status line).
const UNSAFE_INLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Untrusted text for a terminal: control characters shown as escapes; tabs and line breaks kept. */
export function terminalSafe(text: unknown): string {
  return String(text ?? '').replace(UNSAFE, visible);
}

/** Untrusted text for one line of a terminal: line breaks and tabs are shown as escapes too. */
export function terminalSafeLine(text: unknown): string {
  return String(text ?? '').replace(UNSAFE_INLINE, (char) => (char === '\n' ? '\\n' : char === '\t' ? '\\t' : visible(char)));
}

// In JSON: DEL and the C1 controls always (JSON.stringify already escapes C0); on a terminal also the
// bidi and line-separator characters. Escaped, they are the same data.
const JSON_UNSAFE = /[\u007f-\u009f]/g;
const JSON_UNSAFE_TERMINAL = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON.stringify, with DEL and C1 controls (and, for a terminal, bidi controls) written as `\\u00XX`. */
export function jsonText(value: unknown, indent?: number, terminal = false): string {
  return escapeJson(JSON.stringify(value, null, indent) ?? 'null', terminal);
}

/**
 * JSON text made by JSON.stringify (C0 controls already escaped), with DEL and C1 controls (and, for a
 * terminal, bidi controls and line separators) written as `\\uXXXX`: these can only stand inside
 * strings, so the text stays valid JSON and parses to the same value.
 */
export function escapeJson(text: string, terminal = false): string {
  return text.replace(terminal ? JSON_UNSAFE_TERMINAL : JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// svc's own colours (SGR: ESC [ digits and semicolons m) are the only escape sequences a line of
// svc's may carry; everything else a terminal would act on is shown.
const STYLED_UNSAFE = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The last guard of every line svc writes to stderr: svc's own colours kept, any other control
 * character (a server's text that a caller forgot to make safe) shown as an escape. Text already
 * made safe passes unchanged.
 */
export function terminalSafeStyled(line: string): string {
  return line.replace(STYLED_UNSAFE, (match) => (match.length > 1 ? match : visible(match)));
}
