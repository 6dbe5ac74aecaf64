import { ParameterInvalidError } from '../errors/api-error.js';
import { containsNul, nulRefusal } from '../database/nul-character.js';
import { containsUnpairedSurrogate, unpairedSurrogateRefusal } from '../database/unpaired-surrogate.js';

/** Why `text`, given as `name`, cannot be stored as sent (a NUL, half a surrogate pair), or null. */
export function unstorableText(text: string, name: string): ParameterInvalidError | null {
  if (containsNul(text)) return new ParameterInvalidError(name, nulRefusal(name));
  if (containsUnpairedSurrogate(text)) return new ParameterInvalidError(name, unpairedSurrogateRefusal(name));
  return null;
}
