/**
 * The label selector string parser and requirement validation of upstream
 * k8s.io/apimachinery/pkg/labels (lexer, recursive-descent parser and NewRequirement),
 * with upstream's error texts. Used by labels.ts; not a public entry point.
 *
 * @see https://github.com/kubernetes/apimachinery/blob/release-1.32/pkg/labels/selector.go
 */
import { goQuote } from './field-errors.js';
import { isQualifiedName, isValidLabelValue } from './validation.js';

/** selection.Operator values, spelled as upstream. */
export type Operator = '!' | '=' | '==' | 'in' | '!=' | 'notin' | 'exists' | 'gt' | 'lt';

/** One requirement: `key op values`. */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  /** In the order given (the parser gives them sorted and de-duplicated). */
  readonly values: readonly string[];
}

/** `[]string{"a", "b"}` / `[]string(nil)`, as Go's %#v prints a string slice. */
function goStringSlice(vals: readonly string[] | null): string {
  if (vals === null) return '[]string(nil)';
  return `[]string{${vals.map(goQuote).join(', ')}}`;
}

const validOperators: Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/** Upstream utilerrors aggregate text: one message bare, several `[a, b]`, duplicates dropped. */
export function aggregate(msgs: string[]): string {
  const uniq = [...new Set(msgs)];
  return uniq.length === 1 ? uniq[0]! : `[${uniq.join(', ')}]`;
}

/** Validation messages of a requirement, with upstream's field paths (`key`, `values`, `values[0][app]`). */
export function requirementErrors(key: string, operator: string, values: readonly string[] | null): string[] {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(`key: Invalid value: ${goQuote(key)}: ${keyErrs.join('; ')}`);
  const n = values?.length ?? 0;
  const vs = goStringSlice(values);
  switch (operator) {
    case 'in':
    case 'notin':
      if (n === 0) errs.push(`values: Invalid value: ${vs}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (n !== 1) errs.push(`values: Invalid value: ${vs}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (n !== 0) errs.push(`values: Invalid value: ${vs}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (n !== 1) errs.push(`values: Invalid value: ${vs}: for 'Gt', 'Lt' operators, exactly one value is required`);
      (values ?? []).forEach((v, i) => {
        if (!isInt64(v)) errs.push(`values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      });
      break;
    default:
      errs.push(`operator: Unsupported value: ${goQuote(operator)}: supported values: ${validOperators.map((o) => goQuote(o)).join(', ')}`);
  }
  (values ?? []).forEach((v, i) => {
    const vErrs = isValidLabelValue(v);
    if (vErrs.length) errs.push(`values[${i}][${key}]: Invalid value: ${goQuote(v)}: ${vErrs.join('; ')}`);
  });
  return errs;
}

function isInt64(s: string): boolean {
  if (!/^[+-]?\d+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

// ---------------------------------------------------------------------------------------
// lexer

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

interface Item {
  tok: Tok;
  lit: string;
}

/** Splits a selector into tokens as upstream's Lexer does (identifiers end at specials, blanks or NUL). */
function scan(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  const read = (): string => (pos < s.length ? s[pos++]! : '\0');
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === '\0') {
      items.push({ tok: Tok.EndOfString, lit: '' });
      return items;
    }
    if (isSpecial(ch)) {
      // longest special-symbol token
      let buf = ch;
      let last: Item | undefined = literalTokens[buf] !== undefined ? { tok: literalTokens[buf]!, lit: buf } : undefined;
      for (;;) {
        const c = read();
        if (c === '\0') break;
        if (!isSpecial(c)) {
          pos--;
          break;
        }
        buf += c;
        const t = literalTokens[buf];
        if (t !== undefined) last = { tok: t, lit: buf };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    let buf = ch;
    for (;;) {
      const c = read();
      if (c === '\0') break;
      if (isSpecial(c) || isWhitespace(c)) {
        pos--;
        break;
      }
      buf += c;
    }
    const t = buf === 'in' ? Tok.In : buf === 'notin' ? Tok.NotIn : Tok.Identifier;
    items.push({ tok: t, lit: buf });
  }
}

// ---------------------------------------------------------------------------------------
// parser

class ParseError {
  constructor(readonly message: string) {}
}

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  /** In the Values context `in`/`notin` are plain identifiers. */
  private lookahead(values: boolean): Item {
    const it = this.items[this.pos]!;
    return values && (it.tok === Tok.In || it.tok === Tok.NotIn) ? { tok: Tok.Identifier, lit: it.lit } : it;
  }

  private consume(values: boolean): Item {
    const it = this.lookahead(values);
    this.pos++;
    return it;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === Tok.Identifier || tok === Tok.DoesNotExist) {
        let r: Requirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          if (e instanceof ParseError) throw new ParseError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        reqs.push(r);
        const t = this.consume(true);
        if (t.tok === Tok.EndOfString) return reqs;
        if (t.tok === Tok.Comma) {
          const t2 = this.lookahead(true);
          if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
            throw new ParseError(`found '${t2.lit}', expected: identifier after ','`);
          }
          continue;
        }
        throw new ParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
      }
      if (tok === Tok.EndOfString) return reqs;
      throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): Requirement {
    const { key, op } = this.parseKeyAndInferOperator();
    if (op === 'exists' || op === '!') return checked(key, op, []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return checked(key, operator, [...values].sort(byteOrder));
  }

  private parseKeyAndInferOperator(): { key: string; op: Operator | '' } {
    let op: Operator | '' = '';
    let t = this.consume(true);
    if (t.tok === Tok.DoesNotExist) {
      op = '!';
      t = this.consume(true);
    }
    if (t.tok !== Tok.Identifier) throw new ParseError(`found '${t.lit}', expected: identifier`);
    const keyErrs = isQualifiedName(t.lit);
    if (keyErrs.length) throw new ParseError(`<nil>: Invalid value: ${goQuote(t.lit)}: ${keyErrs.join('; ')}`);
    const next = this.lookahead(true).tok;
    if ((next === Tok.EndOfString || next === Tok.Comma) && op !== '!') op = 'exists';
    return { key: t.lit, op };
  }

  private parseOperator(): Operator {
    const t = this.consume(false);
    switch (t.tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
      default:
        throw new ParseError(`found '${t.lit}', expected: ${binaryOperators}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const s = this.parseIdentifiersList();
      if (this.consume(true).tok !== Tok.ClosedPar) throw new ParseError(`found '${lit}', expected: ')'`);
      return s;
    }
    if (tok === Tok.ClosedPar) {
      this.consume(true);
      return new Set(['']);
    }
    throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === Tok.Identifier) {
        s.add(lit);
        const t2 = this.lookahead(true);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return s;
        throw new ParseError(`found '${t2.lit}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        if (s.size === 0) s.add(''); // "(,"
        const t2 = this.lookahead(true).tok;
        if (t2 === Tok.ClosedPar) {
          s.add(''); // ",)"
          return s;
        }
        if (t2 === Tok.Comma) {
          this.consume(true);
          s.add(''); // ",,"
        }
        continue;
      }
      throw new ParseError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const t = this.lookahead(true).tok;
    if (t === Tok.EndOfString || t === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

function checked(key: string, op: Operator, values: string[]): Requirement {
  const errs = requirementErrors(key, op, values);
  if (errs.length) throw new ParseError(aggregate(errs));
  return { key, operator: op, values };
}

/** Go string ordering (bytewise; the same as UTF-16 order for label text). */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Parses a selector string into requirements sorted by key, or returns upstream's error
 * text (e.g. `unable to parse requirement: found '', expected: identifier`).
 */
export function parseSelectorString(selector: string): Requirement[] | string {
  let reqs: Requirement[];
  try {
    reqs = new Parser(scan(selector)).parse();
  } catch (e) {
    if (e instanceof ParseError) return e.message;
    throw e;
  }
  return reqs.sort((a, b) => byteOrder(a.key, b.key));
}
