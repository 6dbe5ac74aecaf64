import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

/** The results go between the markers of this page; the reading around them is written by hand. */
const BENCHMARKS_PAGE = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

/**
 * Writes one part's results (`delivery` or `api`) between its own markers inside the page's
 * `bench:start`/`bench:end`, leaving the other part's as the last run left them.
 */
export async function writeResults(part: 'delivery' | 'api', text: string): Promise<void> {
  const page = readFileSync(BENCHMARKS_PAGE, 'utf8');
  const start = `<!-- bench:${part}:start -->`;
  const end = `<!-- bench:${part}:end -->`;
  if (!page.includes(start) || !page.includes(end)) return;
  const updated = page.replace(new RegExp(`${start}[\\s\\S]*${end}`), () => `${start}\n${text}\n${end}`);
  // Formatted as the repository's prettier check wants it, so that a run leaves the page lint-clean.
  const options = await resolveConfig(BENCHMARKS_PAGE);
  writeFileSync(BENCHMARKS_PAGE, await format(updated, { ...options, filepath: BENCHMARKS_PAGE }));
  console.log(`docs/benchmarks.md updated (${part}).`);
}
