/**
 * A DTO's fields as a plain type, for a handler parameter that `validatedAs(Dto)` validates: such a
 * parameter's design type is `Object`, which a host's global ValidationPipe (run before the
 * module's pipes) passes by, where the class itself would be validated there first, with the
 * host's options and messages, and answered without the offending parameter's name.
 */
export type DtoFields<Dto> = { [Field in keyof Dto]: Dto[Field] };
