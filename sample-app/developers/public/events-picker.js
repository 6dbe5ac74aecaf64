// An "Events" fieldset: "all (*)" or some event types, never both.

/** Reads and sets the event types chosen in `fieldset`; ticking "all (*)" unticks and locks the types. */
export function eventsPicker(fieldset) {
  const all = fieldset.querySelector('input[name=all-events]');
  const types = [...fieldset.querySelectorAll('input[name=events]')];
  const sync = () => {
    for (const box of types) {
      box.disabled = all.checked;
      if (all.checked) box.checked = false;
    }
  };
  all.addEventListener('change', sync);
  return {
    get() {
      return all.checked ? ['*'] : types.filter((box) => box.checked).map((box) => box.value);
    },
    set(events) {
      all.checked = events.includes('*');
      for (const box of types) box.checked = events.includes(box.value);
      sync();
    },
  };
}
