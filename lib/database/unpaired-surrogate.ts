/**
 * Half of a UTF-16 surrogate pair, which no UTF-8 text holds: each driver would store a replacement
 * (one U+FFFD on PostgreSQL, three on SQLite), unlike what was answered, so such input is refused.
 */
export function containsUnpairedSurrogate(text: string): boolean {
  // With the u flag a well-formed pair is one code point: only a lone half matches.
  return /[\uD800-\uDFFF]/u.test(text);
}

/** The one wording of that refusal. */
export function unpairedSurrogateRefusal(name: string): string {
  return `${name} must be valid Unicode text: it holds half of a UTF-16 surrogate pair.`;
}
