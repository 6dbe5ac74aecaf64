// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const ASCII_CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether text holds an ASCII control character (a tab, a line break, NUL...). */
export function hasControlCharacter(text: string): boolean {
  return ASCII_CONTROL.test(text);
}
