import { ipLiteralOf, isPublicAddress } from './address-policy.js';
import { hasControlCharacter } from './control-characters.js';

// localhost (RFC 6761), mDNS .local and cloud-internal zones such as metadata.google.internal name
// the sender's own host or network, never a customer's public endpoint.
const INTERNAL_HOST_NAME = /(^|\.)(localhost|local|internal)$/;

/**
 * Registration-time check of an endpoint URL: null when acceptable, else a message for the customer.
 * Early feedback only: DNS can change, so the connect-time guard is the binding check.
 * `allowInsecure` (development) also permits http and local hosts.
 */
export function checkWebhookUrl(raw: string, allowInsecure: boolean): string | null {
  const schemeMessage = allowInsecure
    ? 'url must be an absolute http or https URL'
    : 'url must be an absolute https URL';
  // WHATWG URL strips surrounding whitespace and removes tabs and line breaks inside, so such a URL
  // would pass as the one it parses to while being stored, shown and compared as sent.
  if (raw.trim() !== raw) return 'url must not begin or end with whitespace';
  if (hasControlCharacter(raw)) return 'url must not contain control characters such as tabs or line breaks';
  // Each of these is repaired by WHATWG URL into another URL than the one stored and shown, and a
  // backslash is read as a slash by some parsers and not by others: a dashboard or a check with
  // another parser would see another host than the one sent to.
  if (raw.includes('\\')) return 'url must not contain a backslash';
  if (raw.includes(' ')) return 'url must not contain spaces: percent-encode them as %20';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return schemeMessage;
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return schemeMessage;
  // WHATWG URL also repairs "https:example.com", "https:/example.com" and "https:///example.com"
  // into another URL than the one stored and shown: the scheme must be followed by "//" and a host.
  if (!/^https?:\/\/(?!\/)/i.test(raw)) return schemeMessage;
  // Port 0 is no port anything listens on: every attempt would fail to connect.
  if (url.port === '0') return 'url must not use port 0';
  // Credentials in the URL would be stored, displayed and sent to whoever the host points at.
  // An empty one ("https://@example.com") is dropped by the parser: refused as well, as sent.
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/, 1)[0];
  if (authority.includes('@')) return 'url must not contain a username or password';
  if (allowInsecure) return null;

  const literal = ipLiteralOf(url.hostname);
  if (literal !== null) {
    return isPublicAddress(literal) ? null : 'url must not point to a private or reserved IP address';
  }
  // WHATWG URL keeps a trailing dot on names ("localhost."), and the resolver ignores it.
  if (INTERNAL_HOST_NAME.test(url.hostname.replace(/\.+$/, ''))) {
    return 'url must not point to a local or internal host name';
  }
  return null;
}

/** The option that takes what secure mode refuses, named to the developer who set the module up. */
const INSECURE_URLS_HINT =
  'For local development, set webhooks.allowInsecureUrls: true in the module options.';

/**
 * The refusal of an endpoint URL as the API answers it, or null. Outside production, a URL refused
 * only by secure mode (http, a private, loopback or internal host) also names the option that takes
 * it; in production the API's customers, who cannot set it, see checkWebhookUrl's message alone.
 */
export function webhookUrlRefusal(raw: string, allowInsecure: boolean, production: boolean): string | null {
  const problem = checkWebhookUrl(raw, allowInsecure);
  if (problem === null || allowInsecure || production || checkWebhookUrl(raw, true) !== null) return problem;
  return `${problem}. ${INSECURE_URLS_HINT}`;
}
