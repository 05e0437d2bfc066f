/**
 * `$(VAR)` expansion as upstream's expansion.Expand: `$(NAME)` is replaced by the
 * value of NAME when defined, left as written otherwise; `$$` is an escaped `$`
 * (so `$$(NAME)` yields `$(NAME)`); any other `$` stays.
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/third_party/forked/golang/expansion/expand.go
 */
export function expand(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c !== '$' || i + 1 >= input.length) {
      out += c;
      i++;
      continue;
    }
    const n = input[i + 1];
    if (n === '$') {
      out += '$';
      i += 2;
      continue;
    }
    if (n === '(') {
      const end = input.indexOf(')', i + 2);
      if (end < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, end);
      const v = lookup(name);
      out += v === undefined ? `$(${name})` : v;
      i = end + 1;
      continue;
    }
    out += `$${n}`;
    i += 2;
  }
  return out;
}
