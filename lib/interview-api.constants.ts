/** The validated options (ResolvedOptions), injected by the module's own providers. */
export const INTERVIEW_API_OPTIONS = Symbol('INTERVIEW_API_OPTIONS');
/** Metadata key set by @RequireScopes and read by ApiKeyGuard. */
export const REQUIRED_SCOPES = 'interview-api:required-scopes';
