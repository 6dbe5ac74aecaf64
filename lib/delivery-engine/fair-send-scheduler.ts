import { performance } from 'node:perf_hooks';
import { MinHeap } from './min-heap.js';
import {
  IDLE_SHARE_MS,
  MIN_SHARE_ROUNDS,
  REMEMBERED_PACES,
  SEND_DURATION_WEIGHT,
} from '../interview-api.tuning.js';

/**
 * How a send's turn ended: it ran, or it was given back unsent when its endpoint or account could
 * hold fewer.
 */
export type SendTurn<T> = { ran: true; value: T } | { ran: false };

/** A send waiting for its turn. */
interface Waiting {
  seq: number;
  task: (sending: () => void) => Promise<unknown>;
  resolve: (turn: SendTurn<unknown>) => void;
  reject: (error: unknown) => void;
}

/** The endpoints of one account and mode in this process, which share one share of the slots. */
class Tenant {
  readonly lanes = new Set<Lane>();
  /** Its lanes held back because they, or it, run their share. */
  readonly capped = new Set<Lane>();
  running = 0;
  /** Its sends held here, running or waiting, over all its lanes. */
  held = 0;
  /** Each of its lanes' share of the slots: its own share split between them. */
  laneShare = 0;
  /** Smoothed duration of its sends that have ended, in ms; null before the first ends. */
  typicalMs: number | null = null;
  /** Its lanes whose pace is known, and the sum of the rounds each of them may hold. */
  pacedLanes = 0;
  pacedRounds = 0;

  constructor(readonly key: string) {}
}

/** One endpoint's sends in this process: those waiting for their turn, in order, and those running. */
class Lane {
  running = 0;
  waiting: Waiting[] = [];
  head = 0;
  /** Smoothed duration of its sends that have ended, in ms; null before the first ends. */
  typicalMs: number | null = null;
  /** Whether it is in the ready heap, in the capped set, or in neither. */
  state: 'idle' | 'ready' | 'capped' = 'idle';
  /** Since when it has had nothing to send (performance.now ms); null while it has. */
  emptySince: number | null = null;

  constructor(
    readonly id: string,
    readonly tenant: Tenant,
  ) {}

  get waitingCount(): number {
    return this.waiting.length - this.head;
  }

  /** Its sends held here, running or waiting. */
  get queued(): number {
    return this.running + this.waitingCount;
  }
}

/**
 * Hands a worker's send slots fairly to accounts (and modes), then to their endpoints: an equal share
 * each, split equally between the account's endpoints, so endpoints that never answer hold only their
 * share. Held sends are bounded by pace (`boundOf`, `tenantBound`); any over are given back unsent.
 */
export class FairSendScheduler {
  private readonly lanes = new Map<string, Lane>();
  private readonly tenants = new Map<string, Tenant>();
  private readonly ready = new MinHeap<Lane>();
  /**
   * The typical send duration of endpoints that gave up their share, oldest first: a burst after a
   * pause starts at the pace already seen rather than at an unknown one.
   */
  private readonly paces = new Map<string, number>();
  private inFlight = 0;
  private seq = 0;
  /** Each account's share of the slots. */
  private tenantShare: number;
  private isClosed = false;
  private readonly sweep: NodeJS.Timeout;

  /**
   * @param heldPerSlot the sends an endpoint may hold per slot of its share until its pace is known
   * @param drainBudgetMs how long an endpoint's held sends may take to drain at its typical pace
   */
  constructor(
    private readonly concurrency: number,
    private readonly heldPerSlot: number,
    private readonly drainBudgetMs: number,
  ) {
    this.tenantShare = concurrency;
    this.sweep = setInterval(() => this.forgetEmpty(), IDLE_SHARE_MS);
    this.sweep.unref();
  }

  /**
   * Whether one more send to this endpoint may be held here. One to an endpoint not held here yet
   * is admitted, and `run` gives it back at once if its account already holds all it may.
   */
  admits(endpointId: string): boolean {
    const lane = this.lanes.get(endpointId);
    return lane === undefined ? !this.isClosed : this.hasRoom(lane);
  }

  /** The endpoints held here that admit no more sends now (`admits` false). */
  endpointsWithoutRoom(): string[] {
    const full: string[] = [];
    for (const [endpointId, lane] of this.lanes) if (!this.hasRoom(lane)) full.push(endpointId);
    return full;
  }

  /** Whether an endpoint held here may hold one more send: under its bound, its account under its own. */
  private hasRoom(lane: Lane): boolean {
    return !this.isClosed && lane.queued < this.boundOf(lane) && !this.holdsAllItMay(lane.tenant);
  }

  /** Whether it has been closed: it starts nothing more. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Starts nothing more: every waiting send is given back, and any later one at once. */
  close(): void {
    this.isClosed = true;
    clearInterval(this.sweep);
    for (const lane of this.lanes.values()) this.trim(lane);
  }

  /**
   * An endpoint's pace here: one send per `intervalMs` at its share and typical duration, and `drainMs`
   * for what it (or its account, when that holds all it may) holds to drain. Until one of its sends
   * has ended, one deadline to drain and no interval: by then its first sends have told its pace.
   */
  pace(endpointId: string, deadlineMs: number): { intervalMs: number; drainMs: number } {
    const lane = this.lanes.get(endpointId);
    if (lane === undefined) return { intervalMs: 0, drainMs: 0 };
    const { tenant } = lane;
    const tenantDrainMs =
      tenant.typicalMs !== null && this.holdsAllItMay(tenant)
        ? Math.ceil((tenant.held + 1) / this.tenantShare) * tenant.typicalMs
        : 0;
    if (lane.typicalMs === null) return { intervalMs: 0, drainMs: Math.max(deadlineMs, tenantDrainMs) };
    const share = tenant.laneShare;
    return {
      intervalMs: lane.typicalMs / share,
      drainMs: Math.max(Math.ceil((lane.queued + 1) / share) * lane.typicalMs, tenantDrainMs),
    };
  }

  /**
   * Runs `task` in its endpoint's turn, passing on its failure; an endpoint keeps the `tenant` (account
   * and mode) it first came with. `task` calls `sending` as its request starts: the pace is timed from
   * there, so a slow database read is not taken for a slow receiver.
   */
  run<T>(
    endpointId: string,
    tenant: string,
    task: (sending: () => void) => Promise<T>,
  ): Promise<SendTurn<T>> {
    if (this.isClosed) return Promise.resolve({ ran: false });
    const lane = this.laneOf(endpointId, tenant);
    return new Promise<SendTurn<T>>((resolve, reject) => {
      lane.waiting.push({ seq: this.seq++, task, resolve: resolve as Waiting['resolve'], reject });
      lane.tenant.held++;
      // Its account held all it may (as when `admits` let in an endpoint new here): this send, the
      // newest, goes back.
      if (lane.tenant.held > this.tenantBound(lane.tenant)) this.giveBack(lane);
      this.place(lane);
      this.pump();
    });
  }

  private laneOf(endpointId: string, tenantKey: string): Lane {
    let lane = this.lanes.get(endpointId);
    if (lane === undefined) {
      let tenant = this.tenants.get(tenantKey);
      if (tenant === undefined) {
        tenant = new Tenant(tenantKey);
        this.tenants.set(tenantKey, tenant);
      }
      lane = new Lane(endpointId, tenant);
      tenant.lanes.add(lane);
      this.setPace(lane, this.paces.get(endpointId) ?? null);
      this.paces.delete(endpointId);
      this.lanes.set(endpointId, lane);
      this.reshare([tenant]);
    }
    lane.emptySince = null;
    return lane;
  }

  private remember(endpointId: string, typicalMs: number): void {
    this.paces.set(endpointId, typicalMs);
    if (this.paces.size > REMEMBERED_PACES) this.paces.delete(this.paces.keys().next().value as string);
  }

  /** Endpoints that have had nothing to send for IDLE_SHARE_MS (checked as often) give up their share. */
  private forgetEmpty(): void {
    const now = performance.now();
    const changed = new Set<Tenant>();
    for (const lane of this.lanes.values()) {
      if (lane.emptySince !== null && now - lane.emptySince >= IDLE_SHARE_MS) {
        this.lanes.delete(lane.id);
        lane.tenant.lanes.delete(lane);
        if (lane.tenant.lanes.size === 0) this.tenants.delete(lane.tenant.key);
        if (lane.typicalMs !== null) this.remember(lane.id, lane.typicalMs);
        this.setPace(lane, null);
        changed.add(lane.tenant);
      }
    }
    if (changed.size > 0) {
      this.reshare([...changed].filter((tenant) => tenant.lanes.size > 0));
      this.pump();
    }
  }

  /** Whether a lane may start one more send now: it and its account are under their shares. */
  private mayStart(lane: Lane): boolean {
    return lane.running < lane.tenant.laneShare && lane.tenant.running < this.tenantShare;
  }

  /** Starts the oldest waiting sends of endpoints under their share while slots are free. */
  private pump(): void {
    while (this.inFlight < this.concurrency) {
      const lane = this.ready.pop();
      if (lane === undefined) return;
      lane.state = 'idle';
      if (lane.waitingCount > 0 && this.mayStart(lane)) this.startNext(lane);
      this.place(lane);
    }
  }

  private startNext(lane: Lane): void {
    const next = lane.waiting[lane.head++];
    if (lane.head === lane.waiting.length) {
      lane.waiting = [];
      lane.head = 0;
    }
    lane.running++;
    lane.tenant.running++;
    this.inFlight++;
    let sendingAt: number | null = null;
    const sending = (): void => {
      sendingAt ??= performance.now();
    };
    const took = (): number | null => (sendingAt === null ? null : performance.now() - sendingAt);
    let sent: Promise<unknown>;
    try {
      sent = next.task(sending);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (value) => {
        this.ended(lane, took());
        next.resolve({ ran: true, value });
      },
      (error: unknown) => {
        this.ended(lane, took());
        next.reject(error);
      },
    );
  }

  /** A send's slot is free again; `durationMs` is how long its request took, null if it made none. */
  private ended(lane: Lane, durationMs: number | null): void {
    const { tenant } = lane;
    // Only an account that ran its whole share can have lanes held back by it, waiting for this.
    const accountWasFull = tenant.running >= this.tenantShare;
    lane.running--;
    tenant.running--;
    tenant.held--;
    this.inFlight--;
    if (durationMs !== null) {
      this.setPace(lane, smoothed(lane.typicalMs, durationMs));
      tenant.typicalMs = smoothed(tenant.typicalMs, durationMs);
    }
    this.trim(lane);
    this.trimTenant(tenant);
    if (lane.queued === 0) {
      this.emptied(lane);
    } else if (
      this.mayStart(lane) &&
      lane.waitingCount > 0 &&
      this.ready.size === 0 &&
      (!accountWasFull || tenant.capped.size === (tenant.capped.has(lane) ? 1 : 0))
    ) {
      // No other endpoint waits under its share, nor another of its account held back by the
      // account's share: the freed slot goes to this one's next send, and a lane that was capped is
      // capped again (or still has room, when the share grew).
      this.startNext(lane);
      if (lane.state === 'capped' && this.mayStart(lane)) this.uncap(lane);
      return;
    }
    // The account runs one send fewer: its lanes held back for its share may run again.
    if (accountWasFull) this.uncapRunnable(tenant);
    else if (lane.state === 'capped' && this.mayStart(lane)) this.uncap(lane);
    this.pump();
  }

  /** Files a lane with waiting sends as ready (it and its account under their shares) or capped. */
  private place(lane: Lane): void {
    if (lane.state !== 'idle' || lane.waitingCount === 0) return;
    if (this.mayStart(lane)) {
      lane.state = 'ready';
      this.ready.push(lane, lane.waiting[lane.head].seq);
    } else {
      lane.state = 'capped';
      lane.tenant.capped.add(lane);
    }
  }

  /** A lane with nothing left to send leaves the capped set and starts counting its idle time. */
  private emptied(lane: Lane): void {
    // A lane left in the ready heap stays filed there; its entry is passed over while it is empty.
    if (lane.state === 'capped') this.leaveCapped(lane);
    lane.emptySince = performance.now();
  }

  /** A lane no longer held back: it may start a send, or has none left waiting. */
  private leaveCapped(lane: Lane): void {
    lane.tenant.capped.delete(lane);
    lane.state = 'idle';
  }

  private uncap(lane: Lane): void {
    this.leaveCapped(lane);
    this.place(lane);
  }

  /** Files as ready the capped lanes of an account that may start a send now. */
  private uncapRunnable(tenant: Tenant): void {
    if (tenant.running >= this.tenantShare) return;
    for (const lane of [...tenant.capped]) if (this.mayStart(lane)) this.uncap(lane);
  }

  /**
   * The shares follow the number of accounts and of each account's endpoints (`changed` names the
   * accounts whose endpoints came or went); a smaller one trims what its endpoints may hold, a
   * larger one lets capped endpoints run.
   */
  private reshare(changed: readonly Tenant[]): void {
    const tenantShare = Math.ceil(this.concurrency / Math.max(1, this.tenants.size));
    const everyTenant = tenantShare !== this.tenantShare;
    this.tenantShare = tenantShare;
    for (const tenant of everyTenant ? this.tenants.values() : changed) {
      const laneShare = Math.ceil(tenantShare / Math.max(1, tenant.lanes.size));
      if (laneShare === tenant.laneShare && !everyTenant) continue;
      const shrank = laneShare < tenant.laneShare;
      tenant.laneShare = laneShare;
      if (shrank) for (const lane of tenant.lanes) this.trim(lane);
      if (everyTenant) this.trimTenant(tenant);
      this.uncapRunnable(tenant);
    }
  }

  /**
   * What an endpoint may hold: its share times the rounds it sends in the drain budget at its
   * typical pace (at least MIN_SHARE_ROUNDS), or `heldPerSlot` rounds until its pace is known. A fast
   * endpoint is not held back: a burst to it is sent, not given back.
   */
  private boundOf(lane: Lane): number {
    return lane.tenant.laneShare * this.roundsAt(lane.typicalMs);
  }

  /**
   * What an account may hold: its share times the mean of its endpoints' rounds, so that its claims
   * grow with its share, not its number of endpoints. Unpaced endpoints count `heldPerSlot` rounds, up
   * to one per slot of its share (they are sent to within a deadline); the rest at the account's pace.
   */
  private tenantBound(tenant: Tenant): number {
    const unpaced = tenant.lanes.size - tenant.pacedLanes;
    const learning = Math.min(unpaced, this.tenantShare);
    const rounds =
      tenant.pacedRounds +
      learning * this.heldPerSlot +
      (unpaced - learning) * this.roundsAt(tenant.typicalMs);
    return (this.tenantShare * rounds) / Math.max(1, tenant.lanes.size);
  }

  /** Whether an account may hold no more sends. */
  private holdsAllItMay(tenant: Tenant): boolean {
    return tenant.held + 1 > this.tenantBound(tenant);
  }

  /** The rounds of its share sent in the drain budget at a pace (at least MIN_SHARE_ROUNDS). */
  private roundsAt(typicalMs: number | null): number {
    if (typicalMs === null) return this.heldPerSlot;
    // Sends under a millisecond count as one: the sum of an account's rounds stays finite.
    return Math.max(MIN_SHARE_ROUNDS, Math.floor(this.drainBudgetMs / Math.max(1, typicalMs)));
  }

  /** Sets a lane's pace, keeping its account's sum of rounds in step. */
  private setPace(lane: Lane, typicalMs: number | null): void {
    const { tenant } = lane;
    if (lane.typicalMs !== null) {
      tenant.pacedLanes--;
      tenant.pacedRounds -= this.roundsAt(lane.typicalMs);
    }
    lane.typicalMs = typicalMs;
    if (typicalMs !== null) {
      tenant.pacedLanes++;
      tenant.pacedRounds += this.roundsAt(typicalMs);
    }
  }

  /** Gives back the newest waiting sends of an endpoint that holds more than it may. */
  private trim(lane: Lane): void {
    const bound = this.isClosed ? 0 : this.boundOf(lane);
    while (lane.waitingCount > 0 && lane.queued > bound) this.giveBack(lane);
  }

  /**
   * Gives back the newest waiting sends of an account that holds more than it may, over all its
   * endpoints, at once: the room they took in the worker goes to the others.
   */
  private trimTenant(tenant: Tenant): void {
    const excess = Math.ceil(tenant.held - this.tenantBound(tenant));
    if (excess <= 0) return;
    // Keyed by the newest waiting send's age, negated: the heap's top is the lane with the newest.
    const newest = new MinHeap<Lane>();
    for (const lane of tenant.lanes)
      if (lane.waitingCount > 0) newest.push(lane, -lane.waiting[lane.waiting.length - 1].seq);
    for (let left = excess; left > 0; left--) {
      const lane = newest.pop();
      if (lane === undefined) return;
      this.giveBack(lane);
      if (lane.waitingCount > 0) newest.push(lane, -lane.waiting[lane.waiting.length - 1].seq);
    }
  }

  /** Gives back a lane's newest waiting send, unsent. */
  private giveBack(lane: Lane): void {
    lane.waiting.pop()?.resolve({ ran: false });
    lane.tenant.held--;
    if (lane.waitingCount > 0) return;
    lane.waiting = [];
    lane.head = 0;
    if (lane.queued === 0) this.emptied(lane);
    else if (lane.state === 'capped') this.leaveCapped(lane);
  }
}

/** A smoothed send duration, with the latest one taken in. */
function smoothed(typicalMs: number | null, durationMs: number): number {
  return typicalMs === null ? durationMs : typicalMs + (durationMs - typicalMs) * SEND_DURATION_WEIGHT;
}
