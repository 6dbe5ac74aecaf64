/**
 * Every hand-written SQLite statement on the webhook tables, whole, its parameters listed above it.
 * Rows go as `?` lists (VALUES `rows`, IN `ids`), at most SQLITE_MAX_BOUND_VALUES a statement. One
 * writer at a time, so no row locks; RETURNING sees one table, so some steps take a few statements.
 */

/**
 * Publishing, three statements over the same rows `v`. Params of each, per event: id, account_id,
 * livemode, type, payload, created_at, the id prefix of its deliveries, its type as quoted JSON,
 * the one endpoint of a test event (null: every enabled subscriber).
 */
const EVENT_ROWS = (rows: string): string =>
  `v(id, account_id, livemode, type, payload, created_at, delivery_prefix, subscription, endpoint_id) AS (VALUES ${rows})`;

export const PUBLISH = {
  events: (rows: string): string => `WITH ${EVENT_ROWS(rows)}
    INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at)
    SELECT id, account_id, livemode, type, payload, created_at FROM v`,
  /** Returns each delivery's id with its event_id. */
  deliveries: (rows: string): string => `WITH ${EVENT_ROWS(rows)}
    INSERT INTO interview_webhook_deliveries
      (id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at)
    SELECT v.delivery_prefix || lower(hex(randomblob(8))),
      e.account_id, e.livemode, e.id, v.id, v.type, 'pending', 0, v.created_at, v.created_at, v.created_at
    FROM v JOIN interview_webhook_endpoints e ON e.account_id = v.account_id AND e.livemode = v.livemode
    WHERE (v.endpoint_id IS NOT NULL AND e.id = v.endpoint_id)
       OR (v.endpoint_id IS NULL AND e.status = 'enabled'
           AND (e.enabled_events = '["*"]' OR instr(e.enabled_events, v.subscription) > 0))
    RETURNING id, event_id`,
  schedule: (rows: string): string => `WITH ${EVENT_ROWS(rows)}
    INSERT INTO interview_pending_deliveries (delivery_id, next_attempt_at, endpoint_id)
    SELECT id, next_attempt_at, endpoint_id FROM interview_webhook_deliveries
    WHERE event_id IN (SELECT id FROM v)`,
};

/**
 * Claims the deliveries among `ids` that are still due and held by nobody.
 * Params: the lease end, now (the claim's stamp), the ids, the latest due time taken, now.
 */
export const CLAIM = (ids: string): string => `UPDATE interview_webhook_deliveries
  SET locked_until = ?, claimed_at = ?
  WHERE id IN (${ids}) AND status = 'pending'
    AND next_attempt_at <= ? AND (locked_until IS NULL OR locked_until < ?)
  RETURNING id`;

/**
 * The deliveries just claimed with their endpoints and event bodies: an event's body in the first
 * of its rows only, and in none whose endpoint has no room in the worker (`body_unread`).
 * Params: the endpoints whose bodies are left unread (`unread`), then the claimed ids (`ids`).
 */
export const CLAIMED = (unread: string, ids: string): string => `SELECT id, endpoint_id, account_id, livemode,
    event_id, attempt,
    CASE WHEN body_unread THEN NULL
         WHEN row_number() OVER (PARTITION BY event_id ORDER BY body_unread) = 1 THEN payload END AS payload,
    body_unread, url, secret, endpoint_status, retry_drops
  FROM (SELECT d.id, d.endpoint_id, d.account_id, d.livemode, d.event_id, d.attempt, ev.payload,
          w.url, w.secret, w.status AS endpoint_status, w.retry_drops,
          ${unread === '' ? '0' : `d.endpoint_id IN (${unread})`} AS body_unread
        FROM interview_webhook_deliveries d
        LEFT JOIN interview_events ev ON ev.id = d.event_id
        LEFT JOIN interview_webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.id IN (${ids}))`;

/**
 * Extends the claims a worker still holds, where the delivery is still pending under the same
 * claim. Params: per claim its delivery's id and its stamp, then the new lease end.
 */
export const RENEW_CLAIMS = (rows: string): string => `WITH o(id, claim) AS (VALUES ${rows})
  UPDATE interview_webhook_deliveries SET locked_until = ?
  FROM o WHERE interview_webhook_deliveries.id = o.id AND interview_webhook_deliveries.claimed_at = o.claim
    AND interview_webhook_deliveries.status = 'pending'`;

/**
 * Recording outcomes, in order in one transaction, each statement over rows `o` of: delivery id, claim
 * stamp, new status, attempts made with this one, response status, response body, error, duration in
 * ms, next attempt's time, 1 if attempted (else 0), that attempt's id, endpoint; `attempts` and
 * `deliveries` then take now.
 */
const OUTCOME_ROWS = (rows: string): string =>
  `o(id, claim, status, attempt, response_status, response_body, error, duration_ms, next_attempt_at,
     attempted, attempt_id, endpoint_id) AS (VALUES ${rows})`;

export const RECORD_OUTCOMES = {
  /** First, while the claim still tells which deliveries this worker holds. */
  attempts: (rows: string): string => `WITH ${OUTCOME_ROWS(rows)}
    INSERT INTO interview_webhook_attempts
      (id, delivery_id, attempt, response_status, response_body, error, duration_ms, created_at)
    SELECT attempt_id, id, attempt, response_status, response_body, error, COALESCE(duration_ms, 0), ?
    FROM o WHERE attempted = 1
      AND EXISTS (SELECT 1 FROM interview_webhook_deliveries d WHERE d.id = o.id AND d.claimed_at = o.claim)`,
  deliveries: (rows: string): string => `WITH ${OUTCOME_ROWS(rows)}
    UPDATE interview_webhook_deliveries AS d SET
      status = CASE WHEN d.status = 'pending' OR o.status = 'succeeded' THEN o.status ELSE d.status END,
      error = CASE WHEN (d.status = 'pending' OR o.status = 'succeeded') AND (o.attempted = 1 OR o.status <> 'pending')
                   THEN o.error ELSE d.error END,
      next_attempt_at = CASE WHEN d.status = 'pending' THEN o.next_attempt_at ELSE NULL END,
      attempt = o.attempt,
      response_status = CASE WHEN o.attempted = 1 THEN o.response_status ELSE d.response_status END,
      response_body = CASE WHEN o.attempted = 1 THEN o.response_body ELSE d.response_body END,
      duration_ms = CASE WHEN o.attempted = 1 THEN o.duration_ms ELSE d.duration_ms END,
      locked_until = NULL, claimed_at = NULL, updated_at = ?
    FROM o WHERE d.id = o.id AND d.claimed_at = o.claim`,
  unscheduled: (rows: string): string => `WITH ${OUTCOME_ROWS(rows)}
    DELETE FROM interview_pending_deliveries WHERE delivery_id IN
      (SELECT id FROM interview_webhook_deliveries WHERE id IN (SELECT id FROM o) AND status <> 'pending')`,
  rescheduled: (rows: string): string => `WITH ${OUTCOME_ROWS(rows)}
    INSERT OR REPLACE INTO interview_pending_deliveries (delivery_id, next_attempt_at, endpoint_id)
    SELECT id, next_attempt_at, endpoint_id FROM interview_webhook_deliveries
    WHERE id IN (SELECT id FROM o) AND status = 'pending'`,
  /** Any success ends its endpoint's failing streak. */
  streaksEnded: (rows: string): string => `WITH ${OUTCOME_ROWS(rows)}
    UPDATE interview_webhook_endpoints SET failing_since = NULL
    WHERE failing_since IS NOT NULL
      AND id IN (SELECT endpoint_id FROM o WHERE attempted = 1 AND status = 'succeeded')`,
};

/**
 * Starts or extends the failing streaks of endpoints that failed. Params: the end of the pause
 * that starts a new streak, now, now, the endpoints' ids.
 */
export const EXTEND_FAILING_STREAKS = (ids: string): string => `UPDATE interview_webhook_endpoints SET
    failing_since = CASE WHEN failing_since IS NULL OR last_failed_at IS NULL OR last_failed_at < ?
                         THEN ? ELSE failing_since END,
    last_failed_at = ?
  WHERE id IN (${ids})`;

/** The enabled endpoints among some whose streak began by a time. Params: that time, the ids. */
export const FAILING_TOO_LONG = (ids: string): string => `SELECT id FROM interview_webhook_endpoints
  WHERE status = 'enabled' AND failing_since <= ? AND id IN (${ids})`;

/**
 * Disables an endpoint if it is still enabled (and still has the URL, when one is given).
 * Params: the reason, now, the endpoint, its URL or null, the same URL or null. Returns its id
 * when it disabled it.
 */
export const DISABLE_ENDPOINT = `UPDATE interview_webhook_endpoints
  SET status = 'disabled', disabled_reason = ?, updated_at = ?
  WHERE id = ? AND status = 'enabled' AND (? IS NULL OR url = ?)
  RETURNING id`;

/** Dropping an endpoint's pending retries, in order in the caller's transaction. */
export const DROP_PENDING_RETRIES = {
  /** Params: the endpoint. */
  counted: `UPDATE interview_webhook_endpoints SET retry_drops = retry_drops + 1 WHERE id = ?`,
  /** Params: the reason, now, the endpoint, the endpoint. */
  failed: `UPDATE interview_webhook_deliveries SET status = 'failed', error = ?, next_attempt_at = NULL, updated_at = ?
    WHERE endpoint_id = ? AND status = 'pending'
      AND id IN (SELECT delivery_id FROM interview_pending_deliveries WHERE endpoint_id = ?)`,
  /** Params: the endpoint, the endpoint. */
  unscheduled: `DELETE FROM interview_pending_deliveries WHERE endpoint_id = ? AND delivery_id IN
    (SELECT id FROM interview_webhook_deliveries WHERE status <> 'pending'
       AND id IN (SELECT delivery_id FROM interview_pending_deliveries WHERE endpoint_id = ?))`,
};

/** The endpoints as they are now. Params: their ids. */
export const ENDPOINT_TARGETS = (ids: string): string =>
  `SELECT id, url, secret, status, retry_drops FROM interview_webhook_endpoints WHERE id IN (${ids})`;

/**
 * The sweeper's first page of overdue deliveries, in due order. Params: the latest due time, the
 * same, now, the page's size.
 */
export const OVERDUE_FIRST_PAGE = `SELECT p.delivery_id AS id, p.next_attempt_at AS due FROM interview_pending_deliveries p
  WHERE p.next_attempt_at <= ?
    AND (SELECT 1 FROM interview_webhook_deliveries d WHERE d.id = p.delivery_id AND d.status = 'pending'
         AND d.next_attempt_at <= ? AND (d.locked_until IS NULL OR d.locked_until < ?)) = 1
  ORDER BY p.next_attempt_at, p.delivery_id LIMIT ?`;

/**
 * The sweeper's next page, after the last row of the one before. Params: the latest due time, the
 * same, now, the last row's due time, the same, its delivery id, the page's size.
 */
export const OVERDUE_NEXT_PAGE = `SELECT p.delivery_id AS id, p.next_attempt_at AS due FROM interview_pending_deliveries p
  WHERE p.next_attempt_at <= ?
    AND (SELECT 1 FROM interview_webhook_deliveries d WHERE d.id = p.delivery_id AND d.status = 'pending'
         AND d.next_attempt_at <= ? AND (d.locked_until IS NULL OR d.locked_until < ?)) = 1
    AND (p.next_attempt_at > ? OR (p.next_attempt_at = ? AND p.delivery_id > ?))
  ORDER BY p.next_attempt_at, p.delivery_id LIMIT ?`;

/** The purge of expired events, in order in one transaction. Params, each: the lowest visible event id. */
export const PURGE_EXPIRED = {
  attempts: `DELETE FROM interview_webhook_attempts WHERE delivery_id IN (
      SELECT id FROM interview_webhook_deliveries WHERE event_id IN (SELECT id FROM interview_events WHERE id < ?))`,
  schedule: `DELETE FROM interview_pending_deliveries WHERE delivery_id IN (
      SELECT id FROM interview_webhook_deliveries WHERE event_id IN (SELECT id FROM interview_events WHERE id < ?))`,
  deliveries: `DELETE FROM interview_webhook_deliveries WHERE event_id IN (SELECT id FROM interview_events WHERE id < ?)`,
  count: `SELECT COUNT(*) AS count FROM interview_events WHERE id < ?`,
  events: `DELETE FROM interview_events WHERE id < ?`,
} as const;

/** Stored secrets not yet under the encrypting key, as postgres-statements.ts has them. */
export const SECRETS_AT_REST = {
  /** Params: the last endpoint id of the page before ('' for the first), `<prefix>%`, the page's size. */
  endpointsToEncrypt: `SELECT id, secret FROM interview_webhook_endpoints
    WHERE id > ? AND secret NOT LIKE ? ORDER BY id LIMIT ?`,
  /** Params: the encrypted secret, the endpoint, the secret read. */
  encryptEndpoint: `UPDATE interview_webhook_endpoints SET secret = ? WHERE id = ? AND secret = ?`,
  /** Params: `<prefix>%`, the page's size. */
  answersToEncryptFirst: `SELECT account_id, livemode, idempotency_key, response_body FROM interview_idempotency_keys
    WHERE response_body IS NOT NULL AND response_body NOT LIKE ?
    ORDER BY account_id, livemode, idempotency_key LIMIT ?`,
  /** Params: `<prefix>%`, then the last row of the page before (its account, mode and key), the page's size. */
  answersToEncryptNext: `SELECT account_id, livemode, idempotency_key, response_body FROM interview_idempotency_keys
    WHERE response_body IS NOT NULL AND response_body NOT LIKE ?
      AND (account_id, livemode, idempotency_key) > (?, ?, ?)
    ORDER BY account_id, livemode, idempotency_key LIMIT ?`,
  /** Params: the encrypted answer, the account, the mode, the key, the answer read. */
  encryptAnswer: `UPDATE interview_idempotency_keys SET response_body = ?
    WHERE account_id = ? AND livemode = ? AND idempotency_key = ? AND response_body = ?`,
  /** Without keys: one encrypted value of each table, which nothing configured can read. No params. */
  encryptedEndpoint: `SELECT secret AS value FROM interview_webhook_endpoints WHERE secret LIKE 'enc:%' LIMIT 1`,
  encryptedAnswer: `SELECT response_body AS value FROM interview_idempotency_keys WHERE response_body LIKE 'enc:%' LIMIT 1`,
} as const;
