/**
 * Every hand-written PostgreSQL statement on the module's tables, whole, its parameters listed above
 * it. Rows are bound as one array per column (`unnest`), so each text is fixed and planned once per
 * connection.
 *
 * Lock rule. A statement that locks more than one row locks the endpoints first, then the deliveries,
 * each in id order, so two writers on the same rows wait for one another instead of deadlocking.
 * Updates take `FOR NO KEY UPDATE` (inserts that reference the key go on); the purge, which deletes,
 * takes `FOR UPDATE`. Within a `WITH`, whose parts run in no set order,
 * `(SELECT COUNT(*) FROM <part>) >= 0` makes a part wait for the one it names. The lock-order and plan
 * tests hold every statement here to this rule.
 */

/**
 * Publishes events and their scheduled deliveries in one statement; returns each delivery's id and
 * event_id. Params, an array per column, an element per event: $1 id, $2 account_id, $3 livemode,
 * $4 type, $5 payload, $6 created_at, $7 its deliveries' id prefix, $8 its type as quoted JSON (as a
 * subscription holds it), $9 a test event's one endpoint (null: every enabled subscriber).
 */
export const PUBLISH = `WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::timestamptz[],
                         $7::text[], $8::text[], $9::text[])
      AS v(id, account_id, livemode, type, payload, created_at, delivery_prefix, subscription, endpoint_id)),
  inserted AS (
    INSERT INTO interview_events (id, account_id, livemode, type, payload, created_at)
    SELECT id, account_id, livemode, type, payload, created_at FROM v),
  delivered AS (
    INSERT INTO interview_webhook_deliveries
      (id, account_id, livemode, endpoint_id, event_id, event_type, status, attempt, next_attempt_at, created_at, updated_at)
    SELECT v.delivery_prefix || substr(md5(random()::text || clock_timestamp()::text || e.id || v.id), 1, 16),
      e.account_id, e.livemode, e.id, v.id, v.type, 'pending', 0, v.created_at, v.created_at, v.created_at
    FROM v JOIN interview_webhook_endpoints e ON e.account_id = v.account_id AND e.livemode = v.livemode
    WHERE (v.endpoint_id IS NOT NULL AND e.id = v.endpoint_id)
       OR (v.endpoint_id IS NULL AND e.status = 'enabled'
           AND (e.enabled_events = '["*"]' OR strpos(e.enabled_events, v.subscription) > 0))
    RETURNING id, event_id, endpoint_id, next_attempt_at),
  scheduled AS (
    INSERT INTO interview_pending_deliveries (delivery_id, next_attempt_at, endpoint_id)
    SELECT id, next_attempt_at, endpoint_id FROM delivered)
  SELECT id, event_id FROM delivered`;

/**
 * Claims a batch's deliveries still due and held by nobody, with their endpoints and event bodies (a
 * body in its event's first row only, none where `body_unread`). The primary key alone drives it,
 * whatever the statistics: each id in a lateral subquery, the state test under `IS TRUE` (no index
 * serves it), the window function outside the update. Params: $1 the lease end, $2 now (the claim's
 * stamp), $3 the ids, $4 the latest due time taken, $5 the endpoints whose bodies are left unread.
 */
export const CLAIM = `WITH claimed AS (
    UPDATE interview_webhook_deliveries d SET locked_until = $1, claimed_at = $2
    FROM (SELECT c.id, ev.payload, w.url, w.secret, w.status AS endpoint_status, w.retry_drops
          FROM unnest($3::text[]) AS wanted(id)
          CROSS JOIN LATERAL (
            SELECT id, event_id, endpoint_id FROM interview_webhook_deliveries
            WHERE id = wanted.id
              AND (status = 'pending' AND next_attempt_at <= $4
                   AND (locked_until IS NULL OR locked_until < $2)) IS TRUE
            LIMIT 1 FOR UPDATE SKIP LOCKED) c
          LEFT JOIN interview_events ev ON ev.id = c.event_id
          LEFT JOIN interview_webhook_endpoints w ON w.id = c.endpoint_id) due
    WHERE d.id = due.id
    RETURNING d.id, d.endpoint_id, d.account_id, d.livemode, d.event_id, d.attempt, due.payload,
      d.endpoint_id = ANY($5::text[]) AS body_unread, due.url, due.secret, due.endpoint_status, due.retry_drops)
  SELECT id, endpoint_id, account_id, livemode, event_id, attempt,
    CASE WHEN body_unread THEN NULL
         WHEN row_number() OVER (PARTITION BY event_id ORDER BY body_unread) = 1 THEN payload END AS payload,
    body_unread, url, secret, endpoint_status, retry_drops
  FROM claimed`;

/**
 * Extends the claims a worker still holds, where the delivery is still pending under the same claim;
 * locks in id order, then names the ids again as an array so they are looked up by key.
 * Params: $1 the deliveries' ids, $2 the stamps of the claims held on them, $3 the new lease end.
 */
export const RENEW_CLAIMS = `WITH o AS (SELECT * FROM unnest($1::text[], $2::timestamptz[]) AS o(id, claim)),
  locked AS (
    SELECT id FROM interview_webhook_deliveries WHERE id = ANY(ARRAY(SELECT id FROM o))
    ORDER BY id FOR NO KEY UPDATE)
  UPDATE interview_webhook_deliveries d SET locked_until = CAST($3 AS timestamptz)
  FROM o WHERE d.id = o.id AND d.claimed_at = o.claim AND d.status = 'pending'
    AND d.id = ANY(ARRAY(SELECT id FROM locked))`;

/**
 * Records a group of outcomes in one statement: a success ends its endpoint's failing streak first
 * (`healed`: endpoints before deliveries); each delivery still under the claim takes its new state;
 * attempts are inserted from the rows the update returns, so a lapsed claim adds none; the schedule
 * follows. A delivery dropped meanwhile counts the attempt but keeps its reason unless it succeeded;
 * an outcome with no attempt keeps what the last attempt left. Params, an array per column, an element
 * per outcome sorted by delivery id: $1 delivery id, $2 claim stamp, $3 new status, $4 attempts made
 * with this one, $5 response status, $6 response body, $7 error, $8 duration in ms, $9 next attempt's
 * time, $10 1 if an attempt was made (else 0), $11 that attempt's id, $12 endpoint; then $13 now.
 */
export const RECORD_OUTCOMES = `WITH o AS (
    SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::integer[], $5::integer[], $6::text[],
                         $7::text[], $8::integer[], $9::timestamptz[], $10::integer[], $11::text[], $12::text[])
      AS o(id, claim, status, attempt, response_status, response_body, error, duration_ms, next_attempt_at,
           attempted, attempt_id, endpoint_id)),
  healed AS (
    UPDATE interview_webhook_endpoints SET failing_since = NULL
    WHERE failing_since IS NOT NULL
      AND id IN (SELECT endpoint_id FROM o WHERE attempted = 1 AND status = 'succeeded')
    RETURNING id),
  updated AS (
    UPDATE interview_webhook_deliveries d SET
      status = CASE WHEN d.status = 'pending' OR o.status = 'succeeded' THEN o.status ELSE d.status END,
      error = CASE WHEN (d.status = 'pending' OR o.status = 'succeeded') AND (o.attempted = 1 OR o.status <> 'pending')
                   THEN o.error ELSE d.error END,
      next_attempt_at = CASE WHEN d.status = 'pending' THEN o.next_attempt_at ELSE NULL END,
      attempt = o.attempt,
      response_status = CASE WHEN o.attempted = 1 THEN o.response_status ELSE d.response_status END,
      response_body = CASE WHEN o.attempted = 1 THEN o.response_body ELSE d.response_body END,
      duration_ms = CASE WHEN o.attempted = 1 THEN o.duration_ms ELSE d.duration_ms END,
      locked_until = NULL, claimed_at = NULL, updated_at = CAST($13 AS timestamptz)
    FROM o
    WHERE d.id = o.id AND d.claimed_at = o.claim
      AND d.id = ANY(ARRAY(SELECT id FROM o))
      AND (SELECT COUNT(*) FROM healed) >= 0
    RETURNING d.id, d.status, d.next_attempt_at, d.endpoint_id, o.attempted, o.attempt_id, o.attempt,
      o.response_status, o.response_body, o.error, o.duration_ms),
  recorded AS (
    INSERT INTO interview_webhook_attempts
      (id, delivery_id, attempt, response_status, response_body, error, duration_ms, created_at)
    SELECT attempt_id, id, attempt, response_status, response_body, error, COALESCE(duration_ms, 0),
      CAST($13 AS timestamptz)
    FROM updated WHERE attempted = 1),
  rescheduled AS (
    INSERT INTO interview_pending_deliveries (delivery_id, next_attempt_at, endpoint_id)
    SELECT id, next_attempt_at, endpoint_id FROM updated WHERE status = 'pending'
    ON CONFLICT (delivery_id) DO UPDATE SET next_attempt_at = EXCLUDED.next_attempt_at)
  DELETE FROM interview_pending_deliveries p USING updated
  WHERE p.delivery_id = updated.id AND updated.status <> 'pending'`;

/**
 * Before a record that may disable endpoints, in its transaction: the endpoints it touches, in id
 * order. Params: $1 the endpoints' ids.
 */
export const LOCK_ENDPOINTS = `SELECT COUNT(*) FROM (
    SELECT id FROM interview_webhook_endpoints WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE
  ) AS locked`;

/** Then its deliveries, in id order. Params: $1 the deliveries' ids. */
export const LOCK_DELIVERIES = `SELECT COUNT(*) FROM (
    SELECT id FROM interview_webhook_deliveries WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE
  ) AS locked`;

/**
 * Starts or extends the failing streaks of endpoints that failed: a streak starts at the first
 * failure, or at the first after a pause longer than the rule's.
 * Params: $1 the end of the pause that starts a new streak, $2 now, $3 the endpoints' ids.
 */
export const EXTEND_FAILING_STREAKS = `UPDATE interview_webhook_endpoints SET
    failing_since = CASE WHEN failing_since IS NULL OR last_failed_at IS NULL OR last_failed_at < $1
                         THEN $2 ELSE failing_since END,
    last_failed_at = $2
  WHERE id = ANY($3::text[])`;

/**
 * The enabled endpoints among some whose streak began at or before a time: those to disable.
 * Params: $1 that time, $2 the endpoints' ids.
 */
export const FAILING_TOO_LONG = `SELECT id FROM interview_webhook_endpoints
  WHERE status = 'enabled' AND failing_since <= $1 AND id = ANY($2::text[])`;

/**
 * Disables an endpoint if it is still enabled (and still has the URL, when one is given: a new URL
 * has not said it is gone). Params: $1 the reason, $2 now, $3 the endpoint, $4 its URL or null.
 * Returns the endpoint's id when it disabled it.
 */
export const DISABLE_ENDPOINT = `UPDATE interview_webhook_endpoints
  SET status = 'disabled', disabled_reason = $1, updated_at = $2
  WHERE id = $3 AND status = 'enabled' AND ($4::text IS NULL OR url = $4)
  RETURNING id`;

/**
 * Fails an endpoint's pending deliveries and unschedules them, found through the schedule's endpoint
 * index. Its drop count goes up first, locking it before its deliveries: a worker holding one tells by
 * the count that it was dropped, even once re-enabled. Params: $1 the reason, $2 now, $3 the endpoint.
 */
export const DROP_PENDING_RETRIES = `WITH counted AS (
    UPDATE interview_webhook_endpoints SET retry_drops = retry_drops + 1 WHERE id = $3 RETURNING id),
  locked AS (
    SELECT id FROM interview_webhook_deliveries
    WHERE id = ANY(ARRAY(SELECT delivery_id FROM interview_pending_deliveries
                         WHERE endpoint_id = $3 AND (SELECT COUNT(*) FROM counted) >= 0))
    ORDER BY id FOR NO KEY UPDATE),
  dropped AS (
    UPDATE interview_webhook_deliveries SET status = 'failed', error = $1, next_attempt_at = NULL, updated_at = $2
    WHERE endpoint_id = $3 AND status = 'pending' AND id = ANY(ARRAY(SELECT id FROM locked))
    RETURNING id)
  DELETE FROM interview_pending_deliveries WHERE delivery_id = ANY(ARRAY(SELECT id FROM dropped))`;

/** The endpoints as they are now; a deleted one is missing. Params: $1 their ids. */
export const ENDPOINT_TARGETS = `SELECT id, url, secret, status, retry_drops FROM interview_webhook_endpoints
  WHERE id = ANY($1::text[])`;

/**
 * The sweeper's first page: overdue schedule rows in due order, each checked on its delivery by key
 * in a correlated subquery (a join may scan every delivery ever sent). Params: $1 the latest due time,
 * $2 now (a claim lapsed before it holds nothing), $3 the page's size.
 */
export const OVERDUE_FIRST_PAGE = `SELECT p.delivery_id AS id, p.next_attempt_at AS due FROM interview_pending_deliveries p
  WHERE p.next_attempt_at <= $1
    AND (SELECT 1 FROM interview_webhook_deliveries d WHERE d.id = p.delivery_id AND d.status = 'pending'
         AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until < $2)) = 1
  ORDER BY p.next_attempt_at, p.delivery_id LIMIT $3`;

/**
 * The sweeper's next page, after the last row of the one before. Params: $1 the latest due time,
 * $2 now, $3 the page's size, $4 the last row's due time, $5 its delivery id.
 */
export const OVERDUE_NEXT_PAGE = `SELECT p.delivery_id AS id, p.next_attempt_at AS due FROM interview_pending_deliveries p
  WHERE p.next_attempt_at <= $1
    AND (SELECT 1 FROM interview_webhook_deliveries d WHERE d.id = p.delivery_id AND d.status = 'pending'
         AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until < $2)) = 1
    AND (p.next_attempt_at > $4 OR (p.next_attempt_at = $4 AND p.delivery_id > $5))
  ORDER BY p.next_attempt_at, p.delivery_id LIMIT $3`;

/**
 * The purge of expired events (a range of the primary key: an id begins with its creation time), in
 * order in one transaction. Deliveries are locked first, in id order, so a worker recording one commits
 * before (its rows deleted here) or after (finding it gone). Params, each: $1 the lowest visible event id.
 */
export const PURGE_EXPIRED = {
  lockDeliveries: `SELECT COUNT(*) FROM (
      SELECT id FROM interview_webhook_deliveries
      WHERE event_id IN (SELECT id FROM interview_events WHERE id < $1)
      ORDER BY id FOR UPDATE
    ) AS locked`,
  attempts: `DELETE FROM interview_webhook_attempts WHERE delivery_id IN (
      SELECT id FROM interview_webhook_deliveries WHERE event_id IN (SELECT id FROM interview_events WHERE id < $1))`,
  schedule: `DELETE FROM interview_pending_deliveries WHERE delivery_id IN (
      SELECT id FROM interview_webhook_deliveries WHERE event_id IN (SELECT id FROM interview_events WHERE id < $1))`,
  deliveries: `DELETE FROM interview_webhook_deliveries WHERE event_id IN (SELECT id FROM interview_events WHERE id < $1)`,
  count: `SELECT COUNT(*) AS count FROM interview_events WHERE id < $1`,
  events: `DELETE FROM interview_events WHERE id < $1`,
} as const;

/**
 * Stored secrets not yet under the encrypting key, a page at a time (docs/host-integration.md,
 * Secrets at rest): endpoints by id, kept idempotent answers by their key. Each row is then rewritten only if
 * it still holds what was read, so that processes starting together never encrypt a value twice.
 */
export const SECRETS_AT_REST = {
  /** Params: $1 the last endpoint id of the page before ('' for the first), $2 `<prefix>%`, $3 the page's size. */
  endpointsToEncrypt: `SELECT id, secret FROM interview_webhook_endpoints
    WHERE id > $1 AND secret NOT LIKE $2 ORDER BY id LIMIT $3`,
  /** Params: $1 the encrypted secret, $2 the endpoint, $3 the secret read. */
  encryptEndpoint: `UPDATE interview_webhook_endpoints SET secret = $1 WHERE id = $2 AND secret = $3`,
  /** Params: $1 `<prefix>%`, $2 the page's size. */
  answersToEncryptFirst: `SELECT account_id, livemode, idempotency_key, response_body FROM interview_idempotency_keys
    WHERE response_body IS NOT NULL AND response_body NOT LIKE $1
    ORDER BY account_id, livemode, idempotency_key LIMIT $2`,
  /**
   * Params: $1 `<prefix>%`, $2 the page's size, then the last row of the page before: $3 its
   * account, $4 its mode, $5 its key.
   */
  answersToEncryptNext: `SELECT account_id, livemode, idempotency_key, response_body FROM interview_idempotency_keys
    WHERE response_body IS NOT NULL AND response_body NOT LIKE $1
      AND (account_id, livemode, idempotency_key) > ($3, $4, $5)
    ORDER BY account_id, livemode, idempotency_key LIMIT $2`,
  /** Params: $1 the encrypted answer, $2 the account, $3 the mode, $4 the key, $5 the answer read. */
  encryptAnswer: `UPDATE interview_idempotency_keys SET response_body = $1
    WHERE account_id = $2 AND livemode = $3 AND idempotency_key = $4 AND response_body = $5`,
  /** Without keys: one encrypted value of each table, which nothing configured can read. No params. */
  encryptedEndpoint: `SELECT secret AS value FROM interview_webhook_endpoints WHERE secret LIKE 'enc:%' LIMIT 1`,
  encryptedAnswer: `SELECT response_body AS value FROM interview_idempotency_keys WHERE response_body LIKE 'enc:%' LIMIT 1`,
} as const;

/**
 * A page of `limit` events of the feed, newest first, with its size budget, in one statement: the
 * keyset index is read from the position the page starts below and stops after `limit + 1` entries.
 * The lowest created_at is a condition of the scan, which keeps that ordered read right after a
 * burst, before any statistics (test/event-list-plans.e2e-spec.ts holds it). A payload comes back only for the leading rows whose characters
 * (LENGTH) fit the budget, the first row always, so the database sends no more than the budget and
 * one event. The limit is written into the text, an integer from the validated list parameters.
 * Params: $1 account_id, $2 livemode, $3 the lowest created_at listed, $4 and $5 the created_at and
 * id the page starts below, $6 the budget of payload characters.
 */
export const EVENT_PAGE = (limit: number): string => `SELECT id, CAST(created_at AS TEXT) AS position,
    CASE WHEN row_number() OVER w <= ${limit} AND (row_number() OVER w = 1 OR sum(length(payload)) OVER w <= $6)
         THEN payload END AS payload
  FROM (SELECT id, created_at, payload FROM interview_events
        WHERE account_id = $1 AND livemode = $2 AND created_at >= $3 AND (created_at, id) < ($4, $5)
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit + 1}) page
  WINDOW w AS (ORDER BY created_at DESC, id DESC ROWS UNBOUNDED PRECEDING)
  ORDER BY created_at DESC, id DESC`;

/** EVENT_PAGE of some types only. Params: $1 to $6 as EVENT_PAGE's, $7 the types, an array. */
export const EVENT_PAGE_OF_TYPES = (
  limit: number,
): string => `SELECT id, CAST(created_at AS TEXT) AS position,
    CASE WHEN row_number() OVER w <= ${limit} AND (row_number() OVER w = 1 OR sum(length(payload)) OVER w <= $6)
         THEN payload END AS payload
  FROM (SELECT id, created_at, payload FROM interview_events
        WHERE account_id = $1 AND livemode = $2 AND created_at >= $3 AND (created_at, id) < ($4, $5)
          AND type = ANY($7::text[])
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit + 1}) page
  WINDOW w AS (ORDER BY created_at DESC, id DESC ROWS UNBOUNDED PRECEDING)
  ORDER BY created_at DESC, id DESC`;

/**
 * The key a request presents, unless revoked, by the unique index on its hash; its scopes as the
 * entity stores them (comma-separated). Params: $1 the key's SHA-256, hex.
 */
export const API_KEY_BY_HASH = `SELECT id, account_id, livemode, scopes, last_used_at FROM interview_api_keys
  WHERE key_hash = $1 AND revoked_at IS NULL`;
