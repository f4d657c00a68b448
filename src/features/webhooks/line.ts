import { terminalSafeLine } from '../../core/sanitize.js';
import { textWidth, truncate } from '../../core/width.js';
import type { Verdict } from './delivery.js';

/**
 * `2026-11-24T06:30:00.123Z  evt_1  order.sent  ✓ verified` — every value from the sender made
 * terminal-safe. With `width` (a terminal's columns) the line fits it: the time, the type and the
 * verdict stay whole, the event id gives way first, then a failure's detail shrinks with `…`.
 */
export function deliveryLine(chalk: { green(text: string): string; red(text: string): string; yellow(text: string): string }, receivedAt: string, id: string, type: string, verdict: Verdict, width?: number): string {
  const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  const shownId = terminalSafeLine(cut(id, 100)) || '-';
  const shownType = terminalSafeLine(cut(type, 60)) || '-';
  let detail = verdict.ok ? '' : terminalSafeLine(cut(verdict.detail ?? '', 300));
  const markText = () => (verdict.ok ? `✓ verified${verdict.duplicate ? ' duplicate' : ''}` : `✗ ${verdict.error}: ${detail}`);
  let parts = [receivedAt, shownId, shownType];
  const lineWidth = () => textWidth([...parts, markText()].join('  '));
  if (width !== undefined && lineWidth() > width) parts = [receivedAt, shownType];
  if (width !== undefined && !verdict.ok && lineWidth() > width) {
    detail = truncate(detail, Math.max(1, textWidth(detail) - (lineWidth() - width)));
  }
  const mark = verdict.ok
    ? chalk.green('✓ verified') + (verdict.duplicate ? ` ${chalk.yellow('duplicate')}` : '')
    : chalk.red(markText());
  return [...parts, mark].join('  ');
}
