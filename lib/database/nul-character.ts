/**
 * PostgreSQL refuses U+0000 in text of every type, even as a query parameter compared with a
 * column: the statement fails, and the client would get a 500. Input holding one is refused before
 * it reaches the database, on SQLite too, so that both answer alike.
 */
export function containsNul(text: string): boolean {
  return text.includes('\u0000');
}

/** The one wording of that refusal, for a body field, a query parameter or a publish argument. */
export function nulRefusal(name: string): string {
  return `${name} must not contain NUL (\\u0000) characters.`;
}
