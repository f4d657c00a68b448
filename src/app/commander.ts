/**
 * commander's classes with the types of `@commander-js/extra-typings`, which infer a command's
 * options and arguments from what it declares (the verb contract, verb.ts, and the global options,
 * globals.ts, are typed this way). At run time these are commander's own classes, as extra-typings
 * itself re-exports them; only the types come from extra-typings, so nothing more is loaded.
 */
import * as commander from 'commander';
import type * as typed from '@commander-js/extra-typings';

export const { Argument, Command, Option } = commander as unknown as Pick<typeof typed, 'Argument' | 'Command' | 'Option'>;

/** A declaration: the command node it was given, with its flags and arguments added. */
export type Declare = (command: typed.Command) => typed.Command<any[], any, any>;

/** The options a declaration gives its command, as commander hands them over. */
export type OptionsOf<D extends Declare> = ReturnType<D> extends typed.Command<any[], infer Options, any> ? Options : never;

/** The positional arguments a declaration gives its command, in order (a variadic one as an array). */
export type ArgsOf<D extends Declare> = ReturnType<D> extends typed.Command<infer Args, any, any> ? Args : never;
