// Timestamps with their zone and a relative form, kept current while the page is open.
import { h } from './dom.js';

const absolute = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
});
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

const UNITS = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** "3 minutes ago", "in 12 seconds". */
function relative(iso, now = Date.now()) {
  const delta = new Date(iso).getTime() - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(delta) >= size || unit === 'second')
      return relativeFormat.format(Math.round(delta / size), unit);
  }
  return '';
}

function render(element) {
  const iso = element.dateTime;
  if (element.dataset.form === 'countdown') {
    element.textContent = new Date(iso).getTime() <= Date.now() ? 'due now' : relative(iso);
    return;
  }
  element.replaceChildren(
    h('span', { class: 'absolute' }, absolute.format(new Date(iso))),
    h('span', { class: 'relative' }, relative(iso)),
  );
}

/** A timestamp: local date and time with its zone, and how long ago; the UTC value on hover. */
export function when(iso) {
  if (!iso) return h('span', { class: 'muted' }, 'never');
  const element = h('time', { datetime: iso, title: iso, 'data-form': 'full' });
  render(element);
  return element;
}

/** A time to come, as a countdown ("in 4 seconds"), with the full time on hover. */
export function countdown(iso) {
  const element = h('time', {
    datetime: iso,
    title: absolute.format(new Date(iso)),
    'data-form': 'countdown',
  });
  render(element);
  return element;
}

/** Keeps every timestamp's relative part current. */
export function startClock() {
  setInterval(() => document.querySelectorAll('time[data-form]').forEach(render), 1000);
}
