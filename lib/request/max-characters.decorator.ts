import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * A string of at most `max` characters as a PostgreSQL varchar counts them: code points.
 * class-validator's MaxLength counts a character and the variation selector after it (U+FE0F in
 * most emoji) as one, so a value it passes could still be too long for the column.
 */
export function MaxCharacters(max: number): PropertyDecorator {
  return ValidateBy({
    name: 'maxCharacters',
    validator: {
      validate: (value: unknown): boolean =>
        typeof value === 'string' && (value.length <= max || [...value].length <= max),
      defaultMessage: (args?: ValidationArguments): string =>
        `${args?.property ?? 'value'} must be shorter than or equal to ${max} characters`,
    },
  });
}
