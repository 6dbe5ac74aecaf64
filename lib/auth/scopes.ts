/** The nine scopes a key may hold (docs/api-contract.md, Scopes). */
export const SCOPES = [
  'interviewers:read',
  'candidates:read',
  'candidates:write',
  'candidates:import',
  'invitations:send',
  'results:read',
  'results:export',
  'developers:manage',
  'billing:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
