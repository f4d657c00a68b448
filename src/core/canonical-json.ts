/**
 * JSON with object members sorted by name and undefined members left out, so the same content
 * always gives the same text: the sandbox compares idempotent requests by it, and bulk derives
 * idempotency keys from it. Written with an explicit stack, not recursion, so no nesting depth can
 * exhaust the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text (a closing bracket, a separator, a member name).
  const work: ({ value: unknown } | string)[] = [{ value }];
  while (work.length > 0) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const current = item.value;
    if (Array.isArray(current)) {
      out.push('[');
      work.push(']');
      for (let i = current.length - 1; i >= 0; i--) {
        work.push({ value: current[i] });
        if (i > 0) work.push(',');
      }
    } else if (current !== null && typeof current === 'object') {
      const members = Object.entries(current as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      out.push('{');
      work.push('}');
      for (let i = members.length - 1; i >= 0; i--) {
        const [name, member] = members[i];
        work.push({ value: member });
        work.push(`${i > 0 ? ',' : ''}${JSON.stringify(name)}:`);
      }
    } else {
      out.push(JSON.stringify(current) ?? 'null');
    }
  }
  return out.join('');
}
