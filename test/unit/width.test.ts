/**
 * The width fast path gives string-width's answers: every character it measures by length is one
 * column and one grapheme on its own, and on many mixed inputs textWidth and truncate agree with
 * string-width and with cutting grapheme by grapheme.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { isNarrowChar, isNarrowText, textWidth, truncate } from '../../src/core/width.js';

const segmenter = new Intl.Segmenter();
const graphemes = (text: string) => [...segmenter.segment(text)].map(({ segment }) => segment);

/** Cutting as output.ts did before the fast path: grapheme by grapheme, measured by string-width. */
function referenceTruncate(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let result = '';
  let used = 0;
  for (const segment of graphemes(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    result += segment;
    used += w;
  }
  return `${result}…`;
}

/** A small seeded generator (mulberry32): the same inputs every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const narrowChars = Array.from({ length: 0x10000 }, (_, code) => code).filter(isNarrowChar).map((code) => String.fromCharCode(code));

/** Pieces that are not narrow: wide, emoji and their sequences, marks, joiners, controls, escapes, Hangul, lone surrogates. */
const otherPieces = [
  '日', '本', 'ｶ', 'ﾞ', '한', '\u1100', '\u1161', '\u11a8', '🎁', '👍🏽', '👨‍👩‍👧', '🇩🇪', '❤️', '1️⃣', '#\u20e3', '©\ufe0f',
  '\u0301', '\u0308', '\u200d', '\u200b', '\u00ad', '\u2028', '\u0900', '\u093f', 'क', '\u094d', '\t', '\n', '\r', '\x1b[1m',
  '\x1b[0m', '\u009b31m', '\x7f', '\u0085', '\ud83c', '\udf81', '\u2e3a', '\u3000', '\uff01', '\u0410', 'Ω', 'ß', '\u0e33',
];

function mixedString(next: () => number): string {
  const length = Math.floor(next() * 24);
  let text = '';
  for (let i = 0; i < length; i++) {
    const pick = next();
    if (pick < 0.5) text += String.fromCharCode(0x20 + Math.floor(next() * 0x5f));
    else if (pick < 0.8) text += narrowChars[Math.floor(next() * narrowChars.length)];
    else text += otherPieces[Math.floor(next() * otherPieces.length)];
  }
  return text;
}

describe('narrow characters', () => {
  it('each is one column wide for string-width', () => {
    const wrong = narrowChars.filter((char) => stringWidth(char) !== 1);
    expect(wrong).toEqual([]);
    expect(narrowChars.length).toBe(95 + 95 + 336 + 24 + 1);
  });

  it('never join a neighbour: any run of them is one grapheme per character', () => {
    const next = random(7);
    const runs = [narrowChars.join(''), [...narrowChars].reverse().join('')];
    for (let i = 0; i < 200; i++) runs.push(Array.from({ length: 64 }, () => narrowChars[Math.floor(next() * narrowChars.length)]).join(''));
    for (const run of runs) expect(graphemes(run).length).toBe(run.length);
  });

  it('controls, the soft hyphen, separators and everything past U+024F but dashes and € are not narrow', () => {
    expect([0x00, 0x09, 0x0a, 0x1f, 0x7f, 0x85, 0x9f, 0xad, 0x250, 0x300, 0x2028, 0x200d, 0x3000, 0xfe0f].filter(isNarrowChar)).toEqual([]);
    expect(isNarrowText('svc_live_…1234 — “Ada” Lovelace, Zürich, Łódź €5')).toBe(true);
    expect(isNarrowText('Tokyo 日本')).toBe(false);
  });
});

describe('textWidth', () => {
  it('is string-width on fixed cases', () => {
    const cases = ['', 'abc', 'svc_live_…1234', 'Zürich', '日本語', 'ab🎁cd', '👨‍👩‍👧', 'e\u0301', '\x1b[1mbold\x1b[22m', 'a\u00adb', 'ｶﾞ', '한국', '\u1100\u1161\u11a8', 'a\tb', '\ud83c'];
    expect(cases.map(textWidth)).toEqual(cases.map((text) => stringWidth(text)));
  });

  it('is string-width on 10,000 mixed strings', () => {
    const next = random(24);
    for (let i = 0; i < 10_000; i++) {
      const text = mixedString(next);
      expect(textWidth(text), JSON.stringify(text)).toBe(stringWidth(text));
    }
  });
});

describe('truncate', () => {
  it('cuts as grapheme-by-grapheme cutting does, on 10,000 mixed strings and widths from -1 to 25', () => {
    const next = random(99);
    for (let i = 0; i < 10_000; i++) {
      const text = mixedString(next);
      const width = Math.floor(next() * 27) - 1;
      expect(truncate(text, width), `${JSON.stringify(text)} at ${width}`).toBe(referenceTruncate(text, width));
    }
  });

  it('keeps text that fits, and cuts plain text to width - 1 characters and an ellipsis', () => {
    expect(truncate('short', 5)).toBe('short');
    expect(truncate('a longer name', 8)).toBe('a longe…');
    expect(truncate('abc', 1)).toBe('…');
    expect(truncate('abc', 0)).toBe('…');
  });
});
