// Action buttons: disabled while their request runs, so that a double click makes one object, and
// disabled with the reason shown while their action cannot apply.
import { notify } from './feedback.js';

function settle(button) {
  button.disabled = button.getAttribute('aria-busy') === 'true' || Boolean(button.dataset.blocked);
}

/** Blocks `button` with the reason why (shown in its title and in `reasonElement`), or unblocks it. */
export function block(button, reason, reasonElement) {
  if (reason) button.dataset.blocked = reason;
  else delete button.dataset.blocked;
  button.title = reason || '';
  if (reasonElement) reasonElement.textContent = reason || '';
  settle(button);
}

/**
 * A listener that runs `run` once at a time for `button`: a second click or submit while it runs is
 * ignored. A failure goes to `onError` (a form's field errors), else to a notice.
 */
export function guarded(button, run, onError) {
  return async (event) => {
    if (event && event.type === 'submit') event.preventDefault();
    if (button.getAttribute('aria-busy') === 'true' || button.dataset.blocked) return;
    button.setAttribute('aria-busy', 'true');
    settle(button);
    try {
      await run(event);
    } catch (error) {
      if (onError) onError(error);
      else notify(error.message, true);
    } finally {
      button.removeAttribute('aria-busy');
      settle(button);
    }
  };
}

/** Guards a form's submit button: the form submits once at a time. */
export function onSubmit(form, run, onError) {
  form.addEventListener('submit', guarded(form.querySelector('button[type=submit]'), run, onError));
}
