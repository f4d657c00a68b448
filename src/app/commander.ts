/**
 * commander's classes with the types of `@commander-js/extra-typings`, which infer a command's
 * options and arguments from what it declares (see verb.ts). At run time these are commander's own
 * classes, as extra-typings itself re-exports them; only the types come from extra-typings, so
 * nothing more is loaded.
 */
import * as commander from 'commander';
import type * as typed from '@commander-js/extra-typings';

export const { Argument, Command, Option } = commander as unknown as Pick<typeof typed, 'Argument' | 'Command' | 'Option'>;
