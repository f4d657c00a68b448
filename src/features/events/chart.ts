/**
 * The terminal picture of `events stats`: one row per event type with a bar per time bucket
 * (▁▂▃▄▅▆▇█, each row scaled to its own peak so a spike of a rare type shows as clearly as one of a
 * busy type; `·` for none), the row's total and its peak with the time it happened, a line for all
 * types together, and a labelled time axis (UTC). It fits the terminal: when there are more buckets
 * than columns, neighbouring buckets share a column (the header says how many); with room to spare,
 * bars get wider.
 */
import stringWidth from 'string-width';
import type { Output } from '../../core/output.js';
import { thousands, truncate } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { formatMicros } from '../../core/time.js';
import { paintEventGroup, paintStatus } from '../status.js';
import type { Stats } from './stats.js';

export type { Stats };

const BLOCKS = '▁▂▃▄▅▆▇█';
const NONE = '·';
const ALL = 'all types';
/** Bars never get wider than this many columns per cell (one of them the gap). */
const MAX_CELL = 4;
const LABEL_MAX = 24;

interface Row {
  label: string;
  counts: number[];
  /** the last row, "all types" (drawn bold under a rule) */
  isAll?: true;
}

/** How the chart fits the width: columns for the labels, the bars, the totals and the peaks. */
interface Layout {
  labelWidth: number;
  totals: string[];
  totalWidth: number;
  /** "peak 9 at 14:05" per row, shown only where every bucket still gets a column of its own */
  peaks: string[] | undefined;
  /** buckets that share one column */
  group: number;
  cells: number;
  cellWidth: number;
  cellMicros: number;
}

export function renderChart(output: Output, stats: Stats): string {
  const { chalk } = output;
  const width = output.io.terminalWidth();
  const rows = chartRows(stats);
  const layout = chartLayout(stats, rows, width);
  const chartWidth = layout.cells * layout.cellWidth;
  const lines = [chalk.bold(truncate(terminalSafeLine(header(stats, rows, layout, width)), width)), ''];
  lines.push(`${' '.repeat(layout.labelWidth)}  ${' '.repeat(chartWidth)}  ${chalk.bold('total'.padStart(layout.totalWidth))}`.trimEnd());
  rows.forEach((row, index) => {
    const label = truncate(terminalSafeLine(row.label), layout.labelWidth);
    const paint = row.isAll ? chalk.bold : typePaint(chalk, row.label);
    const name = row.isAll ? chalk.bold(label) : label;
    const peak = layout.peaks ? `  ${chalk.dim(layout.peaks[index])}` : '';
    if (row.isAll) lines.push(`${' '.repeat(layout.labelWidth)}  ${chalk.dim('─'.repeat(chartWidth))}`);
    lines.push(`${name}${' '.repeat(layout.labelWidth - stringWidth(label))}  ${bar(chalk, row.counts, layout, paint)}  ${layout.totals[index].padStart(layout.totalWidth)}${peak}`.trimEnd());
  });
  lines.push(...axis(stats, layout.cells, layout.cellWidth, layout.cellMicros).map((line) => `${' '.repeat(layout.labelWidth)}  ${chalk.dim(line)}`.trimEnd()));
  return `${lines.join('\n')}\n`;
}

/** A row per type, and one for all types together when there are several. */
function chartRows(stats: Stats): Row[] {
  const buckets = stats.lastBucket - stats.firstBucket + 1;
  const rows: Row[] = stats.types.map((type) => ({ label: type, counts: range(buckets).map((i) => stats.count(type, stats.firstBucket + i)) }));
  if (rows.length < 2) return rows;
  const all = range(buckets).map((i) => rows.reduce((sum, row) => sum + row.counts[i], 0));
  return [...rows, { label: ALL, counts: all, isAll: true }];
}

function chartLayout(stats: Stats, rows: Row[], width: number): Layout {
  const buckets = stats.lastBucket - stats.firstBucket + 1;
  const labelWidth = Math.min(LABEL_MAX, Math.max(...rows.map((row) => stringWidth(terminalSafeLine(row.label)))));
  const totals = rows.map((row) => thousands(sum(row.counts)));
  const totalWidth = Math.max('total'.length, ...totals.map((text) => text.length));
  const fixed = labelWidth + 2 + 2 + totalWidth;
  const peaks = rows.map(({ counts }) => peakWords(stats, counts));
  const peakWidth = Math.max(...peaks.map((text) => text.length));
  const withPeaks = width - fixed - 2 - peakWidth >= buckets;
  const room = Math.max(1, width - fixed - (withPeaks ? 2 + peakWidth : 0));
  const group = Math.ceil(buckets / room);
  const cells = Math.ceil(buckets / group);
  const cellWidth = group > 1 ? 1 : Math.max(1, Math.min(MAX_CELL, Math.floor(room / cells)));
  return { labelWidth, totals, totalWidth, peaks: withPeaks ? peaks : undefined, group, cells, cellWidth, cellMicros: group * stats.bucketMicros };
}

/** "peak 9 at 14:05" (with the month-day when the chart spans days); empty for a row of none. */
function peakWords(stats: Stats, counts: number[]): string {
  const max = Math.max(...counts);
  if (max === 0) return '';
  const manyDays = stats.bucketMicros < DAY && day(stats.firstBucket * stats.bucketMicros) !== day(stats.lastBucket * stats.bucketMicros);
  const bucket = stats.firstBucket + counts.indexOf(max);
  return `peak ${thousands(max)} at ${manyDays ? `${day(bucket * stats.bucketMicros).slice(5)} ` : ''}${clock(stats, bucket)}`;
}

/** The header says the window and the bucket in words: "12 events per hour, 2026-11-21 19:00–23:00 UTC", as much as fits. */
function header(stats: Stats, rows: Row[], layout: Layout, width: number): string {
  const grand = sum(rows.at(-1)?.isAll ? rows.at(-1)!.counts : (rows[0]?.counts ?? []));
  const start = Math.max(stats.sinceMicros, stats.firstBucket * stats.bucketMicros);
  const parts = [
    `${thousands(grand)} event${grand === 1 ? '' : 's'} per ${durationWords(layout.cellMicros)}`,
    `, ${windowWords(start, (stats.lastBucket + 1) * stats.bucketMicros)}`,
    ' · each row scaled to its peak',
  ];
  let text = parts[0];
  for (const part of parts.slice(1)) if (stringWidth(`${text}${part}`) <= width) text = `${text}${part}`;
  return text;
}

/** A row's bars: buckets summed per column, each scaled to the row's peak; `·` where there were none. */
function bar(chalk: Output['chalk'], counts: number[], layout: Layout, paint: (text: string) => string): string {
  const values = range(layout.cells).map((c) => sum(counts.slice(c * layout.group, (c + 1) * layout.group)));
  // A gap between bars once they are wide enough to spare one.
  const barWidth = layout.cellWidth > 2 ? layout.cellWidth - 1 : layout.cellWidth;
  const gap = layout.cellWidth > 2 ? ' ' : '';
  const max = Math.max(...values);
  return values
    .map((value) => {
      if (value === 0) return `${chalk.dim(NONE)}${' '.repeat(barWidth - 1)}${gap}`;
      return `${paint(BLOCKS[Math.max(0, Math.ceil((value / max) * BLOCKS.length) - 1)].repeat(barWidth))}${gap}`;
    })
    .join('');
}

/**
 * Two lines under the bars: times at round positions, spaced so they never touch, and the date
 * (month-day) under the first label and the first label of each new day.
 */
function axis(stats: Stats, cells: number, cellWidth: number, cellMicros: number): string[] {
  const first = stats.firstBucket * stats.bucketMicros;
  const sample = clockAt(first, cellMicros);
  const need = sample.length + 1;
  // The smallest round step (in cells) whose labels do not collide.
  const steps = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 24, 30, 48, 60, 72, 96, 120, 144, 168, 336, 720];
  const step = steps.find((candidate) => candidate * cellWidth >= need) ?? Math.ceil(need / cellWidth);
  const stepMicros = step * cellMicros;
  let times = '';
  let dates = '';
  let lastDay = '';
  for (let c = 0; c < cells; c++) {
    const at = first + c * cellMicros;
    const position = c * cellWidth;
    // Labels sit where the time is round for the step (whole hours, midnight), else every step from the start.
    const round = at % stepMicros === 0 || (c === 0 && cells * cellWidth < need * 2);
    if (!round || position < times.length) continue;
    const label = clockAt(at, cellMicros);
    if (position + label.length > cells * cellWidth + 1) continue;
    times = times.padEnd(position) + label;
    // The date goes under the first label and the first label of each new day, when it has room.
    const today = day(at).slice(5);
    if (today !== lastDay && position >= dates.length + (dates ? 1 : 0)) dates = dates.padEnd(position) + today;
    lastDay = today;
  }
  return cellMicros >= DAY ? [times] : [times, dates];
}

const DAY = 86_400_000_000;

/** A bucket's width in words: `hour`, `5 minutes`, `day`, `90 seconds`. */
export function durationWords(micros: number): string {
  const seconds = Math.round(micros / 1_000_000);
  for (const [unit, size] of [['day', 86_400], ['hour', 3_600], ['minute', 60]] as const) {
    if (seconds % size === 0) return seconds === size ? unit : `${seconds / size} ${unit}s`;
  }
  return seconds === 1 ? 'second' : `${seconds} seconds`;
}

/** A time window in words, to the minute, UTC: `2026-11-21 19:00–23:00 UTC`, or both dates when it spans days. */
export function windowWords(fromMicros: number, toMicros: number): string {
  const [fromDay, fromTime] = formatMicros(fromMicros).slice(0, 16).split('T');
  const [toDay, toTime] = formatMicros(toMicros).slice(0, 16).split('T');
  return fromDay === toDay ? `${fromDay} ${fromTime}–${toTime} UTC` : `${fromDay} ${fromTime} – ${toDay} ${toTime} UTC`;
}

function clock(stats: Stats, bucket: number): string {
  return clockAt(bucket * stats.bucketMicros, stats.bucketMicros);
}

/** The time of day to the minute (to the second for buckets under a minute); the date for day buckets. */
function clockAt(micros: number, stepMicros: number): string {
  const iso = formatMicros(micros);
  if (stepMicros >= DAY) return iso.slice(5, 10);
  return stepMicros < 60_000_000 ? iso.slice(11, 19) : iso.slice(11, 16);
}

function day(micros: number): string {
  return formatMicros(micros).slice(0, 10);
}

/** Bars by meaning: cancelled and expired red, others by their group's colour. */
function typePaint(chalk: Output['chalk'], type: string): (text: string) => string {
  return /\.(cancelled|expired)$/.test(type) ? paintStatus(chalk, type) : paintEventGroup(chalk, type);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

