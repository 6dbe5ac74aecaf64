import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_OPTIONS } from '../lib/interview-api.defaults.js';
import { OPTION_CHECK_TABLES } from '../lib/interview-api.options.js';

const read = (path: string): string => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

const DEFAULTS: Readonly<Record<string, unknown>> = DEFAULT_OPTIONS;

/** The options interfaces, by the path prefix of their fields. */
const INTERFACE_PATHS: Readonly<Record<string, string>> = {
  InterviewApiModuleOptions: '',
  WebhookOptions: 'webhooks.',
  RateLimitOptions: 'rateLimit.',
  FailedAuthenticationLimit: 'rateLimit.failedAuthentications.',
  ResourceDefinitionOf: 'resources.',
};

/** Every option path the module accepts, from its check tables: `webhooks`, `webhooks.timeoutMs`, ... */
function acceptedPaths(): string[] {
  const paths = Object.entries(OPTION_CHECK_TABLES).flatMap(([table, checks]) => [
    ...(table === '' ? [] : [table]),
    ...Object.keys(checks).map((key) => (table === '' ? key : `${table}.${key}`)),
  ]);
  return [...new Set(paths)].sort();
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * A default as the README and the `@default` tags write it: numbers (with `_` separators or a unit:
 * `5s`, `2h`), `true`/`false`, 'strings', and flat arrays and objects of those.
 */
function literal(text: string): unknown {
  const t = text.trim();
  const items = (inner: string): string[] => (inner.trim() === '' ? [] : inner.split(','));
  const duration = /^(\d[\d_]*)(ms|s|m|h|d)$/.exec(t);
  if (duration) return Number(duration[1].replace(/_/g, '')) * DURATION_UNITS[duration[2]];
  if (/^\d[\d_]*$/.test(t)) return Number(t.replace(/_/g, ''));
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^'[^']*'$/.test(t)) return t.slice(1, -1);
  if (t.startsWith('[') && t.endsWith(']')) return items(t.slice(1, -1)).map(literal);
  if (t.startsWith('{') && t.endsWith('}')) {
    return Object.fromEntries(
      items(t.slice(1, -1)).map((entry) => {
        const colon = entry.indexOf(':');
        return [entry.slice(0, colon).trim(), literal(entry.slice(colon + 1))];
      }),
    );
  }
  throw new Error(`not a default this test reads: ${t}`);
}

/**
 * Whether `value`, written as the default of `path`, is what DEFAULT_OPTIONS holds: the value
 * itself, or, for an object of options with no default of its own, the default of each field named.
 */
function expectDefault(path: string, value: unknown): void {
  if (path in DEFAULTS || value === null || typeof value !== 'object' || Array.isArray(value)) {
    expect({ [path]: DEFAULTS[path] }).toEqual({ [path]: value });
    return;
  }
  for (const [field, fieldValue] of Object.entries(value)) expectDefault(`${path}.${field}`, fieldValue);
}

interface ReadmeRow {
  path: string;
  default: string;
}

/** The rows of the README's `## Options` table: each option's path, and its default as written. */
function readmeRows(): ReadmeRow[] {
  const readme = read('../README.md');
  const section = /^## Options$([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  const cells = (line: string): string[] =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
  const [header, , ...rows] = section.split('\n').filter((line) => line.trim().startsWith('|'));
  const columns = cells(header ?? '');
  const option = columns.indexOf('option');
  const byDefault = columns.indexOf('default');
  expect(option).toBe(0);
  expect(byDefault).toBeGreaterThan(0);
  return rows.map((line) => {
    const row = cells(line);
    const path = /`([^`]+)`/.exec(row[option])?.[1];
    if (path === undefined) throw new Error(`a README options row names no option in backticks: ${line}`);
    return { path, default: row[byDefault] };
  });
}

/** A README default cell: null where it says `required`, undefined where it is prose. */
function readmeDefault(cell: string): unknown {
  if (cell === 'required') return null;
  const code = /^`([^`]+)`/.exec(cell);
  if (code) return literal(code[1]);
  const days = /^(\d+) days?$/.exec(cell);
  if (days) return Number(days[1]) * DURATION_UNITS.d;
  return undefined;
}

interface DocumentedMember {
  path: string;
  doc: string | null;
}

/** Each field of the options interfaces, by its path, with its JSDoc text (null without one). */
function documentedMembers(): DocumentedMember[] {
  const source = read('../lib/interview-api.options.ts');
  const members: DocumentedMember[] = [];
  for (const [, name, body] of source.matchAll(/^export interface (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
    const prefix = INTERFACE_PATHS[name];
    if (prefix === undefined) continue;
    // A field at the interface's indentation, and the JSDoc right above it, if any.
    for (const [, doc, field] of body.matchAll(/(?:^ {2}\/\*\*([\s\S]*?)\*\/\n)?^ {2}(\w+)\??[:(]/gm)) {
      members.push({ path: `${prefix}${field}`, doc: doc ?? null });
    }
  }
  return members;
}

/** The value of a JSDoc text's `@default` tag (one line, a note in parentheses after it dropped). */
function defaultTag(doc: string): string | null {
  const tag = /@default (.+)$/m.exec(doc)?.[1].trim();
  return tag === undefined ? null : tag.replace(/\s+\([^()]*\)$/, '');
}

describe('the options as the README and the JSDoc give them', () => {
  it("lists exactly the options the module accepts in the README's options table", () => {
    expect(
      readmeRows()
        .map((row) => row.path)
        .sort(),
    ).toEqual(acceptedPaths());
  });

  it('gives the defaults of DEFAULT_OPTIONS in the README, and says required only of options with none', () => {
    for (const row of readmeRows()) {
      const value = readmeDefault(row.default);
      if (value === null) expect({ [row.path]: row.path in DEFAULTS }).toEqual({ [row.path]: false });
      else if (value !== undefined) expectDefault(row.path, value);
    }
  });

  it('documents every option with JSDoc in its interface', () => {
    const documented = documentedMembers();
    const interfaces = Object.values(INTERFACE_PATHS);
    const checked = acceptedPaths().filter((path) => interfaces.some((prefix) => inInterface(path, prefix)));
    expect(documented.map((member) => member.path).sort()).toEqual(checked);
    expect(documented.filter((member) => member.doc === null).map((member) => member.path)).toEqual([]);
  });

  it('gives in each @default tag the default DEFAULT_OPTIONS holds, and has a tag for each of them', () => {
    const tagged = new Set<string>();
    for (const { path, doc } of documentedMembers()) {
      const tag = doc === null ? null : defaultTag(doc);
      if (tag === null) continue;
      tagged.add(path);
      expectDefault(path, literal(tag));
    }
    // `resources` is forRoot's own argument, not a field of an options interface.
    const untagged = Object.keys(DEFAULTS).filter((path) => path !== 'resources' && !tagged.has(path));
    expect(untagged).toEqual([]);
  });

  it('holds no default for an option the module does not accept', () => {
    const accepted = acceptedPaths();
    expect(Object.keys(DEFAULTS).filter((path) => !accepted.includes(path))).toEqual([]);
  });
});

/** Whether `path` is a field of the interface whose fields' paths start with `prefix`. */
function inInterface(path: string, prefix: string): boolean {
  return path.startsWith(prefix) && !path.slice(prefix.length).includes('.') && path !== 'resources';
}
