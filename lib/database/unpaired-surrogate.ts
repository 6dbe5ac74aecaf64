/**
 * A JavaScript string may hold half of a UTF-16 surrogate pair, which no UTF-8 text can: each
 * database driver replaces it on the way in (PostgreSQL's with one U+FFFD, SQLite's with three), so
 * what is stored would differ from what was answered, and between the databases. Such input is
 * refused, as NUL is.
 */
export function containsUnpairedSurrogate(text: string): boolean {
  // With the u flag a well-formed pair is one code point: only a lone half matches.
  return /[\uD800-\uDFFF]/u.test(text);
}

/** The one wording of that refusal. */
export function unpairedSurrogateRefusal(name: string): string {
  return `${name} must be valid Unicode text: it holds half of a UTF-16 surrogate pair.`;
}
