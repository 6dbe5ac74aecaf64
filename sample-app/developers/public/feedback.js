// What the page tells the user: notices (a polite live region), errors next to their field and in
// the assertive live region.
const notices = () => document.getElementById('notices');
const liveErrors = () => document.getElementById('live-errors');

/** A short notice; an error one is announced at once. */
export function notify(message, isError = false) {
  const notice = document.createElement('div');
  notice.className = 'notice' + (isError ? ' error' : '');
  notice.textContent = message;
  notices().append(notice);
  if (isError) liveErrors().textContent = message;
  setTimeout(() => notice.remove(), isError ? 10_000 : 5_000);
}

/**
 * A form's fields by the API parameter they carry: `{ url: 'endpoint-url' }` names the element
 * whose error paragraph is `endpoint-url-error`.
 */
export class FieldErrors {
  constructor(fields) {
    this.fields = fields;
  }

  clear() {
    for (const id of Object.values(this.fields)) this.set(id, '');
  }

  set(id, message) {
    const field = document.getElementById(id);
    document.getElementById(id + '-error').textContent = message;
    if (message) field.setAttribute('aria-invalid', 'true');
    else field.removeAttribute('aria-invalid');
  }

  /** Shows a message next to the field of `param`; false when no field of this form carries it. */
  show(param, message) {
    const id = this.fields[param];
    if (!id) return false;
    this.set(id, message);
    liveErrors().textContent = message;
    document.getElementById(id).focus();
    return true;
  }

  /** An error from the API, next to its field when it names one of this form's, else as a notice. */
  report(error) {
    if (!(error.param && this.show(error.param, error.message))) notify(error.message, true);
  }
}
