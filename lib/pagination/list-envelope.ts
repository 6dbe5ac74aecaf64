/** The envelope of every list (docs/api-contract.md, List). */
export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
