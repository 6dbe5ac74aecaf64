// What the page says about an endpoint URL the module accepts only because the demo allows it.
const config = JSON.parse(document.getElementById('page-config').textContent);

/** A warning for a plain http:// URL while insecure URLs are allowed, or ''. */
function insecureUrlNote(url, mode) {
  if (!config.insecureUrlsAllowed || !/^http:\/\//i.test(url.trim())) return '';
  return mode === 'live'
    ? 'Live mode with http://: accepted only because this demo sets allowInsecureUrls; a production host ' +
        'refuses http:// and private addresses.'
    : 'http:// is accepted because this demo sets allowInsecureUrls; a production host refuses it.';
}

/** Keeps the note of `input` current as it is typed in. */
export function watchUrl(input, note, mode) {
  const update = () => (note.textContent = insecureUrlNote(input.value, mode()));
  input.addEventListener('input', update);
  return update;
}
