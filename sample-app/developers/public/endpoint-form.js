// The fields of an endpoint's form, shared by "Add endpoint" and "Edit".

/**
 * The URL, event types and description `form` holds, or null once the first missing one is shown
 * next to its field: the checks the API would make, answered before a request.
 */
export function readEndpointForm(form, picker, errors) {
  const url = form.elements.url.value.trim();
  if (!url) {
    errors.show('url', 'Enter the URL the webhooks go to.');
    return null;
  }
  const events = picker.get();
  if (events.length === 0) {
    errors.show('enabled_events', 'Choose at least one event type, or all (*).');
    return null;
  }
  return { url, events, description: form.elements.description.value.trim() };
}
