/**
 * What a verb is to the app: its module declares the command (flags, arguments, help, examples) on
 * the commander node made for it, and `run` does the work with the parsed, typed options. A group's
 * index lists its verbs, each loaded only when it runs (or when the group's help lists them).
 */
import type { Command } from 'commander';
import type { Context } from './context.js';

export interface VerbModule {
  declare(command: Command): void;
  /** Parsing is done; returns an exit code, or nothing for success. */
  run(ctx: Context, opts: never, args: string[]): Promise<number | void>;
}

export type VerbTable = Readonly<Record<string, () => Promise<VerbModule>>>;
