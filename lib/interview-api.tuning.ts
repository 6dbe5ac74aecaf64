// The module's internal timings, sizes, budgets and limits: what a maintainer may turn, none of it an
// option. Each states what it bounds and why it has its value. Imports nothing, so that every folder
// may read it.

// ---- Claims: the deliveries a worker holds ----

/**
 * How long a claim holds its delivery unless renewed. A live worker renews its claims every
 * CLAIM_RENEWAL_MS, however long they wait for their send, so none passes to another worker (a second
 * send of the attempt); a dead worker's claims expire within this.
 */
export const CLAIM_LEASE_MS = 60_000;

/** A third of the lease: a renewal can fail once (the database away for a moment) and none lapses. */
export const CLAIM_RENEWAL_MS = CLAIM_LEASE_MS / 3;

/**
 * How early a claim takes a delivery before it is due: due times are stamped on the publisher's clock
 * and compared on the worker's, and a publisher a few milliseconds ahead would leave every new
 * delivery to the sweeper. A retry this much early is nothing a receiver can tell.
 */
export const DUE_SKEW_ALLOWANCE_MS = 1_000;

/**
 * Claimed deliveries a worker process may hold per send slot (`webhooks.concurrency`): enough for
 * the next batches to be claimed while the current ones are sent and recorded.
 */
export const HELD_PER_SEND_SLOT = 16;

/**
 * Held per send slot however large the events: an endpoint whose pace is known holds two sends per
 * slot of its share (FairSendScheduler), and fewer would leave slots idle.
 */
export const MIN_HELD_PER_SEND_SLOT = 2;

/**
 * The event bodies a worker process may hold, counted at `maxEventBytes` each: a claim holds its body
 * until its outcome is recorded, so with large events and silent receivers HELD_PER_SEND_SLOT alone
 * would let memory grow with `concurrency` times `maxEventBytes`.
 */
export const HELD_BODY_BUDGET_BYTES = 256 * 1024 * 1024;

// ---- The delivery engine ----

/**
 * Jobs a worker process runs at once. A job only waits for room and claims its batch (its sends go
 * on after it completes), so a few are enough to keep the claims ahead of the sends.
 */
export const WORKER_JOB_CONCURRENCY = 8;

/** Time for BullMQ to write the completion of the batches that ended as shutdown began. */
export const COMPLETION_WRITE_MS = 200;

/** At most one enqueue per window, unless a batch fills up. */
export const ENQUEUE_WINDOW_MS = 30;

/**
 * A retry due this far off or more is held in the process up to RETRY_HOLD_MS and enqueued with the
 * others due in its cell, so that failures recorded apart share delayed jobs in Redis. It is still
 * enqueued well before it is due; a process dying meanwhile leaves it to the sweeper.
 */
export const RETRY_HOLD_LEAD_MS = 10_000;

/** How long a retry is held before it is enqueued (see RETRY_HOLD_LEAD_MS). */
export const RETRY_HOLD_MS = 5_000;

/**
 * How long an enqueue (after which the sweeper is left to send the batch), or a count of the waiting
 * jobs, waits for Redis.
 */
export const QUEUE_REDIS_ANSWER_MS = 2_000;

/** A delivery given back is not due again sooner: retries due within a second share a job. */
export const MIN_DEFERRAL_MS = 1_000;

/** The furthest a delivery given back is put off, however large its endpoint's backlog. */
export const DEFERRAL_HORIZON_MS = 3_600_000;

/**
 * Endpoints whose pace of given-back deliveries is tracked before those whose pace is in the past
 * are forgotten (and all of them, if that leaves too many): it bounds the memory only.
 */
export const DEFERRAL_PACES_TRACKED = 10_000;

/** An endpoint holds at most what it sends in this many deadlines (see FairSendScheduler). */
export const DRAIN_BUDGET_DEADLINES = 2;

/** How much the latest send counts in an endpoint's typical send duration (a moving average). */
export const SEND_DURATION_WEIGHT = 0.2;

/** The rounds of its share an endpoint may always hold, however slow its sends. */
export const MIN_SHARE_ROUNDS = 2;

/**
 * How long an endpoint keeps its share of the send slots once it has nothing left to send (up to
 * twice this, as it is checked this often): one that sends in bursts keeps its slots between them,
 * rather than leave them all to a slow endpoint that would hold them for a whole deadline.
 */
export const IDLE_SHARE_MS = 1_000;

/** Endpoints whose pace is remembered after they give up their share: it bounds the memory only. */
export const REMEMBERED_PACES = 10_000;

/**
 * How long a read of an endpoint may serve its sends, aged from when the read was sent. A change to
 * what a send uses (rotate_secret, a new URL, a disable, a delete) answers this long after its commit,
 * so every attempt started after that answer sees it.
 */
export const ENDPOINT_READ_MAX_AGE_MS = 200;

/** Reads in a row that arrive too old to serve: the database is too slow to tell what is current. */
export const MAX_STALE_ENDPOINT_READS = 3;

/** How long an outcome may wait for others to share its statement. */
export const RECORD_WINDOW_MS = 20;

/**
 * Pauses before a failed write of a group of outcomes is tried again, in all well within a claim's
 * lease (renewed meanwhile), so that its sends do not go out twice. Safe to repeat: the record changes
 * only deliveries still under the claims it names.
 */
export const RECORD_RETRY_PAUSES_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000];

/** Ids per look-up of endpoints on SQLite, well under its limit of bound values. */
export const ENDPOINT_IDS_PER_LOOKUP = 500;

/** Rows read per page when stored secrets are brought under the encrypting key at start. */
export const SECRETS_AT_REST_PAGE = 200;

/** A page of a sweep holds this many queue jobs' worth of deliveries (10,000 at the default batch). */
export const SWEEP_JOBS_PER_PAGE = 50;

/** The most pages one sweep takes: a million deliveries at the default batch. */
export const SWEEP_MAX_PAGES = 100;

/**
 * A sweep turn lasts this share of `webhooks.sweepIntervalMs`, so that a worker's timer, which may
 * fire a little early, still finds its next turn free when it is the only worker.
 */
export const SWEEP_TURN_SHARE_OF_INTERVAL = 0.8;

// ---- Sending: DNS and the receiver's reply ----

/**
 * The longest an attempt's DNS resolution may take, whatever its deadline (it takes at most half of
 * that): a name server that has not answered in this long, over DNS_TRIES tries, is not going to
 * answer usefully.
 */
export const MAX_DNS_BUDGET_MS = 3_000;

/** Queries per name within the DNS budget: a lost datagram is asked again; the budget bounds both. */
export const DNS_TRIES = 2;

/** Endpoint URLs are few and repeat on every delivery; the bound on those kept parsed caps memory. */
export const MAX_CACHED_WEBHOOK_TARGETS = 10_000;

/** Characters of a receiver's reply body stored with its attempt. */
export const STORED_BODY_MAX_CHARS = 2_000;

/**
 * Bytes of a receiver's reply body read: STORED_BODY_MAX_CHARS characters take at most 8,000 UTF-8
 * bytes, so this is enough to fill the stored value.
 */
export const RESPONSE_READ_LIMIT_BYTES = 8 * 1024;

/**
 * Bytes one reply may take off the wire: undici's 16 KiB of headers, the body cap with its framing, a
 * few 1xx replies and room to spare. The body cap alone would let an endless status line, chunk
 * header, blank lines or 1xx replies be read at line rate until the deadline.
 */
export const REPLY_BYTE_BUDGET = 64 * 1024 + RESPONSE_READ_LIMIT_BYTES;

// ---- Publishing and reading events ----

/**
 * Events written in one statement and one commit by a group commit of publishes; a full group is
 * written at once.
 */
export const MAX_EVENTS_PER_WRITE = 200;

/**
 * The most event JSON one page of the feed carries, in characters, as few as one event: each is
 * parsed and written out again on the process's one thread, and pages of the largest events are
 * what any key could ask for at its request rate.
 */
export const EVENT_PAGE_CHARACTERS = 4 * 1024 * 1024;

/**
 * The most rows one page of a filter no index serves reads, so a page of a rare value never scans the
 * list at a cost any key could repeat at its rate. A page reaching it ends there, short or even
 * empty, with `has_more` and a cursor at the last row read.
 */
export const UNINDEXED_FILTER_WINDOW = 10_000;

// ---- Requests, API keys and rate limits ----

/** Levels of objects and arrays a request body may nest: far more than any parameters need. */
export const MAX_BODY_DEPTH = 32;

/** How often one API key's `last_used_at` is written at most, per process. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * How long a process trusts a key it found valid without reading it again, as long as Redis says on
 * each request that the key is not marked revoked: a bound for a mark lost with Redis's data.
 */
export const KNOWN_KEY_MAX_AGE_MS = 600_000;

/** How many keys found valid a process keeps (the least recently found go first). */
export const KNOWN_KEYS_MAX = 10_000;

/** How long the rate limiter's connection may take to be ready at start before requests report it. */
export const RATE_LIMIT_CONNECT_GRACE_MS = 10_000;

/** How long a revocation waits for the rate limiter's connection to be ready before it is refused. */
export const REVOCATION_READY_WAIT_MS = 5_000;

/** How long a request waits for Redis's rate-limit answer before it is let through unmetered. */
export const RATE_LIMIT_REDIS_TIMEOUT_MS = 250;

/**
 * Client addresses whose failed authentications a process remembers at most: past it, expired ones
 * are dropped first, then the earliest counted, so that many addresses grow it no further.
 */
export const FAILED_AUTHENTICATION_ADDRESSES = 10_000;

/**
 * Look-ups that may wait for their turn per address, as a multiple of `failedAuthentications.limit`:
 * past it, a burst is refused at once rather than held in memory.
 */
export const FAILED_AUTHENTICATION_WAITING_PER_LIMIT = 10;

/** How long an `Idempotency-Key` answers retries (as Stripe keeps its keys). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/** An idempotent run not answered in this long is taken to have died: a retry may run in its place. */
export const IDEMPOTENT_RUN_LEASE_MS = 60_000;

/**
 * Rounds in which a request tries to claim its `Idempotency-Key` (claim, read, take over an expired
 * one): take-overs and deletions racing a retry settle within a few.
 */
export const IDEMPOTENCY_MAX_ROUNDS = 3;

// ---- Database, clocks and upkeep ----

/** Runs of a transaction PostgreSQL aborted to break a deadlock, in all; several in a row are rare. */
export const DEADLOCK_MAX_RUNS = 5;

/**
 * The longest pause before a deadlocked transaction runs again, in milliseconds, times its run: a
 * random part of it, so that two aborted together do not meet again.
 */
export const DEADLOCK_MAX_PAUSE_MS = 50;

/**
 * How far two clocks may be apart, or move apart between two readings, before the module acts: NTP
 * keeps clocks far closer, and a claim takes a delivery up to DUE_SKEW_ALLOWANCE_MS before it is due.
 */
export const CLOCK_TOLERANCE_MS = 250;

/** How often the module reads PostgreSQL's clock to keep its own on it. */
export const CLOCK_ALIGNMENT_INTERVAL_MS = 60_000;

/** How often a retention (events and deliveries, idempotency keys) purges what expired. */
export const PURGE_INTERVAL_MS = 3_600_000;

/**
 * The first purge, a minute after start: a worker restarted more often than PURGE_INTERVAL_MS (a
 * deploy a day, an autoscaler) would otherwise never purge.
 */
export const FIRST_PURGE_MS = 60_000;

/** How often one warning key may be logged again while it keeps repeating. */
export const WARNING_REPEAT_INTERVAL_MS = 60_000;

/** Warning keys remembered at most: one that names a job or a delivery is seldom seen twice. */
export const WARNING_KEYS_REMEMBERED = 100;
