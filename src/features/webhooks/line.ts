import { terminalSafeLine } from '../../core/sanitize.js';
import { textWidth, truncate } from '../../core/width.js';
import type { Verdict } from './delivery.js';

type Paint = { green(text: string): string; red(text: string): string; yellow(text: string): string };

/** How a line gives way to a narrow terminal, one step at a time, the first that fits is used. */
const STEPS = [
  { shortTime: false, words: true },
  { shortTime: true, words: true },
  { shortTime: true, words: false },
] as const;

/**
 * `2026-11-24T06:30:00.123Z  evt_1  order.sent  ✓ verified` — every value from the sender made
 * terminal-safe. With `width` (a terminal's columns) the line fits it and the event id stays whole:
 * first the time gives way to `06:30:00` (UTC), then `✓ verified` to `✓` (and a refusal drops the
 * type its unverified body claims), then the last text shrinks with `…`: a refusal's detail, the
 * reason a save failed, or else the type. Only an id wider than the terminal itself is cut.
 */
export function deliveryLine(chalk: Paint, receivedAt: string, id: string, type: string, verdict: Verdict, width?: number): string {
  const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const shownId = terminalSafeLine(cut(id, 100)) || '-';
  const shownType = terminalSafeLine(cut(type, 60)) || '-';
  const detail = verdict.ok ? '' : terminalSafeLine(cut(verdict.detail ?? '', 300));
  const notSaved = verdict.notSaved === undefined ? undefined : terminalSafeLine(cut(verdict.notSaved, 300));
  const layout = (step: (typeof STEPS)[number]): Layout => {
    const time = step.shortTime ? receivedAt.slice(11, 19) : receivedAt;
    const mark = verdict.ok ? `✓${step.words ? ' verified' : ''}${verdict.duplicate ? ' duplicate' : ''}` : `✗ ${verdict.error}`;
    const showType = verdict.ok || step.words;
    const flexible = notSaved !== undefined ? 'notSaved' : verdict.ok ? 'type' : 'detail';
    return { time, id: shownId, type: showType ? shownType : undefined, mark, detail, notSaved, flexible };
  };
  let chosen = layout(STEPS[0]);
  if (width !== undefined) {
    chosen = STEPS.map(layout).find((candidate) => plainWidth(candidate) <= width) ?? shrink(layout(STEPS[STEPS.length - 1]), width);
  }
  return render(chosen, chalk);
}

interface Layout {
  time: string;
  id: string;
  type: string | undefined;
  /** `✓ verified`, `✓ duplicate`, `✗ no_matching_signature`, … */
  mark: string;
  /** a refusal's detail (after `mark: `) */
  detail: string;
  /** why the delivery was not saved */
  notSaved: string | undefined;
  /** which text shrinks when nothing else is left to give way */
  flexible: 'type' | 'detail' | 'notSaved';
}

function plainWidth(layout: Layout): number {
  return textWidth(render(layout, { green: String, red: String, yellow: String }));
}

/**
 * Shrinks texts with … to fit: the type (to a few characters) before a refusal's detail or the reason
 * a save failed, then that text; only an id wider than the terminal itself is cut at last.
 */
function shrink(layout: Layout, width: number): Layout {
  let shrunk = layout;
  const order: [keyof Layout, number][] = layout.flexible === 'type' ? [['type', 5], ['id', 1]] : [['type', 5], [layout.flexible, 1], ['id', 1]];
  for (const [key, least] of order) {
    const over = plainWidth(shrunk) - width;
    const text = shrunk[key];
    if (over <= 0) break;
    if (typeof text !== 'string') continue;
    shrunk = { ...shrunk, [key]: truncate(text, Math.max(least, textWidth(text) - over)) };
  }
  return shrunk;
}

function render(layout: Layout, chalk: Paint): string {
  const duplicate = layout.mark.endsWith(' duplicate');
  const mark = layout.mark.startsWith('✓')
    ? chalk.green(duplicate ? layout.mark.slice(0, -' duplicate'.length) : layout.mark) + (duplicate ? ` ${chalk.yellow('duplicate')}` : '')
    : chalk.red(`${layout.mark}: ${layout.detail}`);
  const saved = layout.notSaved === undefined ? [] : [chalk.red(`✗ not saved: ${layout.notSaved}`)];
  return [layout.time, layout.id, ...(layout.type === undefined ? [] : [layout.type]), mark, ...saved].join('  ');
}
