/**
 * Flag names shared by every command of the package (docs/configuration.md, "Flag names"): `--out <file>` for the one
 * file a command writes, `--out-dir <dir>` for a directory of reports, `--fixtures <file>` for a
 * fixtures file a command reads. Names a command used before that convention still work: each is
 * rewritten to its new name before parsing, and the first use of each says so on stderr, in one line.
 */
export function renameOldFlags(argv: readonly string[], renamed: Readonly<Record<string, string>>, notice: (line: string) => void): string[] {
  const result: string[] = [];
  const told = new Set<string>();
  for (const [i, arg] of argv.entries()) {
    if (arg === '--') {
      // Everything after the terminator is an operand, never a flag.
      result.push(...argv.slice(i));
      break;
    }
    const match = /^--([^=]+)(=[\s\S]*)?$/.exec(arg);
    const old = match?.[1];
    const now = old !== undefined && Object.hasOwn(renamed, old) ? renamed[old] : undefined;
    if (old === undefined || now === undefined) {
      result.push(arg);
      continue;
    }
    if (!told.has(old)) {
      told.add(old);
      notice(oldFlagNotice(old, now));
    }
    result.push(`--${now}${match?.[2] ?? ''}`);
  }
  return result;
}

/** `--output-dir is now --out-dir; the old name still works for now.` */
function oldFlagNotice(old: string, now: string): string {
  return `--${old} is now --${now}; the old name still works for now.`;
}
