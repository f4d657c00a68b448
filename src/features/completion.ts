/**
 * Shell completion scripts generated from the command tree, so they never drift from it.
 * completions/ keeps the same output; a test fails when it is stale (`npm run completions`).
 *
 * What completes comes from the tree: subcommands, options, and option values by what the option
 * asks for — commander's choices (`-o`), a `<file>` or `<dir>` placeholder (files, directories), `--data <json>` (`@file`),
 * `--profile` and a profile-name argument (the saved names, read when asked through the hidden
 * `svc __complete profiles`), `--status` (the enum of the command's resource, its choices) and
 * `--type` (event types and their prefixes). Any other value gets no candidates: no file names where no file is
 * asked for. The scripts skip global options and their values when they find the command.
 */
import type { Argument, Command, Option } from 'commander';
import { EVENT_TYPES } from '../api/types.js';
import type { ConfigStore } from '../core/config.js';
import { UsageError } from '../core/errors.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Event types, then each prefix (`order.`) that `--type` also accepts. */
const EVENT_TYPE_VALUES = [...EVENT_TYPES, ...new Set(EVENT_TYPES.filter((type) => type.includes('.')).map((type) => `${type.split('.')[0]}.`))];

/** Profile names as svc allows them (core/config.ts); anything else is never handed to a shell. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

type Values = { kind: 'words'; words: readonly string[] } | { kind: 'files' } | { kind: 'dirs' } | { kind: 'at-files' } | { kind: 'profiles' };

interface OptionInfo {
  flags: string[];
  description: string;
  takesValue: boolean;
  values?: Values;
}

interface Node {
  /** words from the root, e.g. ['links', 'create'] */
  path: string[];
  subcommands: { name: string; description: string }[];
  options: OptionInfo[];
  /** what each positional argument completes to (undefined: nothing) */
  positionals: (Values | undefined)[];
}

function optionValues(path: string[], option: Option): Values | undefined {
  if (!(option.required || option.optional)) return undefined;
  if (option.argChoices) return { kind: 'words', words: option.argChoices };
  if (option.long === '--profile') return { kind: 'profiles' };
  if (option.long === '--type' && path[0] === 'events') return { kind: 'words', words: EVENT_TYPE_VALUES };
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1];
  if (placeholder === 'file') return { kind: 'files' };
  if (placeholder === 'dir') return { kind: 'dirs' };
  if (placeholder === 'json') return { kind: 'at-files' };
  return undefined;
}

function argumentValues(path: string[], argument: Argument): Values | undefined {
  if (argument.argChoices) return { kind: 'words', words: argument.argChoices };
  if (path[0] === 'profiles' && argument.name() === 'name') return { kind: 'profiles' };
  if (path[0] === 'completion' && argument.name() === 'shell') return { kind: 'words', words: SHELLS };
  return undefined;
}

const visible = (command: Command) => command.commands.filter((child) => !child.name().startsWith('__'));

function walk(command: Command, path: string[] = [], inherited: Option[] = []): Node[] {
  const options = [...inherited, ...command.options].filter((option) => !option.hidden);
  const node: Node = {
    path,
    subcommands: visible(command).map((child) => ({ name: child.name(), description: child.description() })),
    options: [
      ...options.map((option) => ({
        flags: [option.long, option.short].filter((flag): flag is string => Boolean(flag)),
        description: option.description,
        takesValue: option.required || option.optional,
        values: optionValues(path, option),
      })),
      { flags: ['--help', '-h'], description: 'show help', takesValue: false },
    ],
    positionals: command.registeredArguments.map((argument) => argumentValues(path, argument)),
  };
  // Global options (the root's) apply to every subcommand.
  const passDown = path.length === 0 ? command.options.filter((option) => option.long !== '--version') : inherited;
  return [node, ...visible(command).flatMap((child) => walk(child, [...path, child.name()], passDown))];
}

/** Every flag that takes a value, anywhere in the tree (a flag never takes one in one place and not in another). */
function valueFlags(nodes: Node[]): string[] {
  const taking = new Set(nodes.flatMap((node) => node.options.filter((option) => option.takesValue).flatMap((option) => option.flags)));
  const clash = nodes.flatMap((node) => node.options.filter((option) => !option.takesValue).flatMap((option) => option.flags)).find((flag) => taking.has(flag));
  if (clash) throw new Error(`completion: ${clash} takes a value in one command and not in another`);
  return [...taking];
}

const quote = (text: string) => text.replace(/'/g, "'\\''");
const optionsOf = (node: Node) => node.options.flatMap((option) => option.flags);
const pathName = (node: Node) => ['svc', ...node.path].join(' ');

/** Value completions keyed by "<command path> <flag>", the node's own first; a global option's by "* <flag>". */
function valueCases(nodes: Node[]): { pattern: string[]; values: Values; global: boolean }[] {
  const root = nodes[0];
  const globalFlags = new Set(optionsOf(root));
  const cases: { pattern: string[]; values: Values; global: boolean }[] = [];
  for (const node of nodes) {
    for (const option of node.options) {
      if (!option.values) continue;
      const global = option.flags.every((flag) => globalFlags.has(flag));
      if (global && node !== root) continue;
      cases.push({ pattern: option.flags.map((flag) => (global ? `* ${flag}` : `${pathName(node)} ${flag}`)), values: option.values, global });
    }
  }
  // Specific cases first: the first match wins in a case statement.
  return [...cases.filter((entry) => !entry.global), ...cases.filter((entry) => entry.global)];
}

function bashValues(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `_svc_words '${quote(values.words.join(' '))}'`;
    case 'files':
      return '_svc_files';
    case 'dirs':
      return '_svc_files -d';
    case 'at-files':
      return '_svc_at_files';
    case 'profiles':
      return '_svc_profiles';
  }
}

function bash(nodes: Node[]): string {
  const paths = nodes.filter((node) => node.path.length > 0).map((node) => `"${pathName(node)}"`);
  const values = valueCases(nodes).map(
    (entry) => `      ${entry.pattern.map((pattern) => (pattern.startsWith('* ') ? `*" ${pattern.slice(2)}"` : `"${pattern}"`)).join('|')}) ${bashValues(entry.values)} ;;`,
  );
  const positionals = nodes.flatMap((node) =>
    node.positionals.flatMap((entry, index) => (entry ? [`      "${pathName(node)} ${index}") ${bashValues(entry)}; return ;;`] : [])),
  );
  const words = nodes.map((node) => `    "${pathName(node)}") subcommands='${node.subcommands.map((sub) => sub.name).join(' ')}' options='${optionsOf(node).join(' ')}' ;;`);
  return `# bash completion for svc (generated by \`svc completion bash\`; do not edit)
_svc_words() { local IFS=$' \\t\\n' w; COMPREPLY=(); for w in $1; do [[ "$w" == "$cur"* ]] && COMPREPLY+=("$w"); done; }
_svc_files() { compopt -o filenames 2>/dev/null; local IFS=$'\\n'; COMPREPLY=($(compgen \${1:--f} -- "$cur")); }
_svc_at_files() { [[ "$cur" == @* ]] || return; compopt -o filenames 2>/dev/null; local IFS=$'\\n' f; COMPREPLY=(); for f in $(compgen -f -- "\${cur#@}"); do COMPREPLY+=("@$f"); done; }
_svc_profiles() {
  local name; COMPREPLY=()
  # The saved profile names (never keys), from the svc being completed; only names svc allows.
  while IFS= read -r name; do
    [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ && "$name" == "$cur"* ]] && COMPREPLY+=("$name")
  done < <("\${COMP_WORDS[0]}" __complete profiles 2>/dev/null)
}
_svc_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="svc" opt="" w i npos=0 subcommands="" options=""
  local valueflags=" ${valueFlags(nodes).join(' ')} "
  [[ "$cur" == "=" || "$cur" == ":" ]] && cur=""
  # The command path: words before the cursor, without options and their values. Bash splits a
  # value at = and : (--profile=p, http://host), so those pieces are skipped with it.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ "$w" == -* ]]; then
      [[ "$valueflags" == *" $w "* ]] || continue
      [[ "\${COMP_WORDS[i+1]}" == "=" ]] && ((i++))
      ((i++))
      while [[ "\${COMP_WORDS[i+1]}" == ":" ]]; do ((i += 2)); done
      if ((i >= COMP_CWORD)); then opt="$w"; break; fi
      continue
    fi
    case "$cmdpath $w" in
      ${paths.join('|')}) cmdpath="$cmdpath $w"; npos=0 ;;
      *) ((npos++)) ;;
    esac
  done
  if [[ -n "$opt" ]]; then
    COMPREPLY=()
    case "$cmdpath $opt" in
${values.join('\n')}
    esac
    return
  fi
  if [[ "$cur" != -* ]]; then
    case "$cmdpath $npos" in
${positionals.join('\n')}
    esac
  fi
  case "$cmdpath" in
${words.join('\n')}
  esac
  if [[ "$cur" != -* && -n "$subcommands" ]]; then _svc_words "$subcommands"; else _svc_words "$options"; fi
}
complete -F _svc_complete svc
`;
}

function zshValues(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `compadd -- ${values.words.map((word) => `'${quote(word)}'`).join(' ')}`;
    case 'files':
      return '_files';
    case 'dirs':
      return '_files -/';
    case 'at-files':
      return "[[ $PREFIX == @* ]] && { compset -P '@'; _files }";
    case 'profiles':
      return '_svc_profiles';
  }
}

function zsh(nodes: Node[]): string {
  const paths = nodes.filter((node) => node.path.length > 0).map((node) => `"${pathName(node)}"`);
  const describe = (text: string) => quote(text.replace(/:/g, '\\:'));
  const values = valueCases(nodes).map((entry) => `    (${entry.pattern.map((pattern) => (pattern.startsWith('* ') ? `*" ${pattern.slice(2)}"` : `"${pattern}"`)).join('|')}) ${zshValues(entry.values)} ;;`);
  const positionals = nodes.flatMap((node) => node.positionals.flatMap((entry, index) => (entry ? [`      ("${pathName(node)} ${index}") ${zshValues(entry)}; return ;;`] : [])));
  const cases = nodes.map((node) => {
    const subs = node.subcommands.map((sub) => `'${quote(sub.name)}:${describe(sub.description)}'`);
    const opts = node.options.flatMap((option) => option.flags.map((flag) => `'${quote(flag)}:${describe(option.description)}'`));
    return `    ("${pathName(node)}") subcommands=(${subs.join(' ')}); options=(${opts.join(' ')}) ;;`;
  });
  return `#compdef svc
# zsh completion for svc (generated by \`svc completion zsh\`; do not edit)
_svc_profiles() {
  # The saved profile names (never keys), from the svc being completed; only names svc allows.
  local name
  local -a names
  for name in \${(f)"$(\${words[1]} __complete profiles 2>/dev/null)"}; do
    [[ "$name" =~ '^[A-Za-z0-9][A-Za-z0-9_.-]*$' ]] && names+=("$name")
  done
  compadd -- "\${names[@]}"
}
_svc() {
  local cmdpath="svc" opt="" w i npos=0
  local -a subcommands options
  local valueflags=" ${valueFlags(nodes).join(' ')} "
  # The command path: words before the cursor, without options and their values.
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    if [[ "$w" == -* ]]; then
      [[ "$valueflags" == *" $w "* ]] || continue
      ((i++))
      if ((i >= CURRENT)); then opt="$w"; break; fi
      continue
    fi
    case "$cmdpath $w" in
      (${paths.join('|')}) cmdpath="$cmdpath $w"; npos=0 ;;
      (*) ((npos++)) ;;
    esac
  done
  if [[ -n "$opt" ]]; then
    case "$cmdpath $opt" in
${values.join('\n')}
    esac
    return
  fi
  if [[ "$PREFIX" != -* ]]; then
    case "$cmdpath $npos" in
${positionals.join('\n')}
    esac
  fi
  case "$cmdpath" in
${cases.join('\n')}
  esac
  if [[ "$PREFIX" != -* && \${#subcommands} -gt 0 ]]; then _describe 'command' subcommands; else _describe 'option' options; fi
}
_svc "$@"
`;
}

function fishValues(values: Values): string {
  switch (values.kind) {
    case 'words':
      return `-x -a '${quote(values.words.join(' '))}'`;
    case 'files':
      return '-r -F';
    case 'dirs':
      return "-x -a '(__fish_complete_directories)'";
    case 'at-files':
      return "-x -a '(__svc_at_files)'";
    case 'profiles':
      return "-x -a '(__svc_profiles)'";
  }
}

function fish(nodes: Node[]): string {
  const paths = nodes.filter((node) => node.path.length > 0).map((node) => `'${node.path.join(' ')}'`);
  const lines = [
    '# fish completion for svc (generated by `svc completion fish`; do not edit)',
    `set -g __svc_paths ${paths.join(' ')}`,
    `set -g __svc_value_flags ${valueFlags(nodes).join(' ')}`,
    '# The command path: words before the cursor, without options and their values.',
    'function __svc_path',
    '    set -l tokens (commandline -opc)',
    '    set -l path',
    '    set -l skip 0',
    '    for token in $tokens[2..-1]',
    '        if test $skip = 1',
    '            set skip 0',
    '        else if string match -q -- "-*" $token',
    '            contains -- $token $__svc_value_flags; and set skip 1',
    '        else if contains -- (string join " " $path $token) $__svc_paths',
    '            set path $path $token',
    '        end',
    '    end',
    '    string join " " $path',
    'end',
    'function __svc_at --argument-names path',
    '    set -l current (__svc_path)',
    '    test "$current" = "$path"',
    'end',
    'function __svc_profiles',
    '    set -l svc (commandline -opc)[1]',
    "    $svc __complete profiles 2>/dev/null | string match -r '^[A-Za-z0-9][A-Za-z0-9_.-]*$'",
    'end',
    'function __svc_at_files',
    '    set -l current (commandline -ct)',
    '    string match -q -- "@*" $current; or return',
    "    __fish_complete_path (string sub -s 2 -- $current) | string replace -r '^' '@'",
    'end',
    'complete -c svc -f',
  ];
  for (const node of nodes) {
    const here = `__svc_at '${node.path.join(' ')}'`;
    for (const sub of node.subcommands) lines.push(`complete -c svc -n "${here}" -a '${quote(sub.name)}' -d '${quote(sub.description)}'`);
    for (const option of node.options) {
      const long = option.flags.find((flag) => flag.startsWith('--'))?.slice(2);
      const short = option.flags.find((flag) => /^-[^-]$/.test(flag))?.slice(1);
      const parts = [`complete -c svc -n "${here}"`];
      if (long) parts.push(`-l ${long}`);
      if (short) parts.push(`-s ${short}`);
      if (option.values) parts.push(fishValues(option.values));
      else if (option.takesValue) parts.push('-x');
      parts.push(`-d '${quote(option.description)}'`);
      lines.push(parts.join(' '));
    }
    node.positionals.forEach((values, index) => {
      // fish has no positional index here; the first argument's values are offered (all commands here take one).
      if (values && index === 0) lines.push(`complete -c svc -n "${here}" ${fishValues(values).replace(/^-[rx] /, '')}`);
    });
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: string): string {
  const nodes = walk(program);
  switch (shell) {
    case 'bash':
      return bash(nodes);
    case 'zsh':
      return zsh(nodes);
    case 'fish':
      return fish(nodes);
    default:
      throw new UsageError(`shell: must be ${SHELLS.slice(0, -1).join(', ')} or ${SHELLS[SHELLS.length - 1]}, got ${shell}`);
  }
}

/** `svc __complete profiles`: the saved profile names, one a line (names only: never a key). */
export async function completionValues(what: string, openConfig: () => Promise<ConfigStore>): Promise<string> {
  if (what !== 'profiles') throw new UsageError(`__complete: nothing to complete for ${what}`);
  const names = (await openConfig()).profileNames().filter((name) => PROFILE_NAME.test(name));
  return names.map((name) => `${name}\n`).join('');
}
