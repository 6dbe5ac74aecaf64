/**
 * A DTO's fields as a plain type, for a parameter `validatedAs(Dto)` validates: its design type is
 * then `Object`, which a host's global ValidationPipe passes by, so the module's rules and errors
 * (naming the parameter) answer rather than the host's.
 */
export type DtoFields<Dto> = { [Field in keyof Dto]: Dto[Field] };
