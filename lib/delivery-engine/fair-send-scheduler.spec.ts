import { FairSendScheduler, type SendTurn } from './fair-send-scheduler.js';

/** A send that stays in flight until the test settles it. */
function pending(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Queues sends and records which started, by name. */
function recorder(scheduler: FairSendScheduler): {
  started: string[];
  send: (
    endpoint: string,
    name: string,
    until?: Promise<string>,
    tenant?: string,
  ) => Promise<SendTurn<string>>;
} {
  const started: string[] = [];
  return {
    started,
    // Each endpoint its own account unless a test says otherwise.
    send: (endpoint, name, until = new Promise<string>(() => undefined), tenant = endpoint) =>
      scheduler.run(endpoint, tenant, (sending) => {
        started.push(name);
        sending();
        return until;
      }),
  };
}

describe('FairSendScheduler', () => {
  it('gives one endpoint every slot, never more than the limit, in the order its sends came', async () => {
    const scheduler = new FairSendScheduler(2, 16, 60_000);
    const sends = Array.from({ length: 5 }, pending);
    const { started, send } = recorder(scheduler);
    const turns = sends.map((s, i) => send('whk_a', `a${i}`, s.promise));
    await tick();
    expect(started).toEqual(['a0', 'a1']);
    sends[1].resolve('one');
    await tick();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    sends.forEach((s, i) => s.resolve(`r${i}`));
    await expect(Promise.all(turns)).resolves.toEqual([
      { ran: true, value: 'r0' },
      { ran: true, value: 'one' },
      { ran: true, value: 'r2' },
      { ran: true, value: 'r3' },
      { ran: true, value: 'r4' },
    ]);
  });

  it('frees the slot of a send that fails or throws, and passes the failure on', async () => {
    const scheduler = new FairSendScheduler(1, 16, 60_000);
    const failing = scheduler.run('whk_a', 'acct_a', () => Promise.reject(new Error('refused')));
    const throwing = scheduler.run('whk_a', 'acct_a', () => {
      throw new Error('thrown');
    });
    const next = scheduler.run('whk_a', 'acct_a', () => Promise.resolve('sent'));
    await expect(failing).rejects.toThrow('refused');
    await expect(throwing).rejects.toThrow('thrown');
    await expect(next).resolves.toEqual({ ran: true, value: 'sent' });
  });

  it('keeps an endpoint that never answers to its share while another sends through the rest', async () => {
    const scheduler = new FairSendScheduler(4, 16, 60_000);
    const { started, send } = recorder(scheduler);
    const silent = Array.from({ length: 4 }, pending);
    // Alone, the silent endpoint has every slot.
    silent.forEach((s, i) => void send('whk_silent', `s${i}`, s.promise));
    void send('whk_silent', 's4');
    await tick();
    expect(started).toEqual(['s0', 's1', 's2', 's3']);
    // A second endpoint halves the share (2). Each slot the silent one frees goes to the other,
    // whose first send stays open too (so it stays among the endpoints) and the rest answer at once.
    void send('whk_fast', 'f0');
    const answers = [1, 2].map((i) => send('whk_fast', `f${i}`, Promise.resolve('ok')));
    await tick();
    expect(started).toHaveLength(4);
    silent[0].resolve('timeout');
    await tick();
    expect(started).toEqual(['s0', 's1', 's2', 's3', 'f0']);
    silent[1].resolve('timeout');
    await Promise.all(answers);
    await tick();
    // The silent endpoint still runs its share (2): the free slot stays free for the other.
    expect(started).toEqual(['s0', 's1', 's2', 's3', 'f0', 'f1', 'f2']);
    silent[2].resolve('timeout');
    await tick();
    expect(started).toContain('s4');
  });

  it("holds an account to its account's share, however many endpoints it has", async () => {
    const scheduler = new FairSendScheduler(4, 16, 60_000);
    const { started, send } = recorder(scheduler);
    // Eight endpoints of one account, each with a send that stays open: alone, it has every slot.
    const many = Array.from({ length: 8 }, pending);
    many.forEach((s, i) => void send(`whk_x${i}`, `x${i}`, s.promise, 'acct_x:live'));
    await tick();
    expect(started).toEqual(['x0', 'x1', 'x2', 'x3']);
    // Another account arrives: each account's share is 2 now. The slots the first frees go to the
    // second until it runs its share, though the first's sends waited longer.
    void send('whk_y', 'y0', undefined, 'acct_y:live');
    void send('whk_y', 'y1', undefined, 'acct_y:live');
    for (const s of many.slice(0, 3)) {
      s.resolve('timeout');
      await tick();
    }
    expect(started).toEqual(['x0', 'x1', 'x2', 'x3', 'y0', 'y1', 'x4']);
    scheduler.close();
  });

  it("gives a slot an account frees to its endpoints' oldest waiting send, not always to the same endpoint", async () => {
    const scheduler = new FairSendScheduler(2, 16, 60_000);
    const { started, send } = recorder(scheduler);
    // Two accounts: one slot each. The first account's endpoints a and b take turns by age.
    void send('whk_u', 'u0', undefined, 'acct_u:live');
    const first = pending();
    void send('whk_a', 'a0', first.promise, 'acct_t:live');
    void send('whk_b', 'b0', undefined, 'acct_t:live');
    void send('whk_a', 'a1', undefined, 'acct_t:live');
    await tick();
    expect(started).toEqual(['u0', 'a0']);
    first.resolve('ok');
    await tick();
    expect(started).toEqual(['u0', 'a0', 'b0']);
    scheduler.close();
  });

  it('gives a freed slot to the oldest waiting send among the endpoints under their share', async () => {
    const scheduler = new FairSendScheduler(1, 16, 60_000);
    const { started, send } = recorder(scheduler);
    const first = pending();
    void send('whk_a', 'a0', first.promise);
    void send('whk_b', 'b0', Promise.resolve('ok'));
    void send('whk_a', 'a1', Promise.resolve('ok'));
    first.resolve('ok');
    await tick();
    await tick();
    expect(started).toEqual(['a0', 'b0', 'a1']);
  });

  it('paces an endpoint by its sends once one has ended, not by the deadline', async () => {
    const scheduler = new FairSendScheduler(2, 2, 60_000);
    const { send } = recorder(scheduler);
    const slow = pending();
    void send('whk_a', 'a0', Promise.resolve('ok'));
    void send('whk_a', 'a1', slow.promise);
    await tick();
    await tick();
    const { intervalMs, drainMs } = scheduler.pace('whk_a', 10_000);
    // One send ended at once: sends of a few milliseconds, against a deadline of 10 s.
    expect(drainMs).toBeLessThan(100);
    expect(intervalMs).toBeLessThan(50);
    slow.resolve('ok');
  });

  it('times the pace from the request on, and not at all for a turn that sent nothing', async () => {
    const scheduler = new FairSendScheduler(2, 2, 60_000);
    // 300 ms before its request (a slow read of the endpoint), then a request that ends at once.
    await scheduler.run('whk_a', 'whk_a', async (sending) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      sending();
      return 'ok';
    });
    expect(scheduler.pace('whk_a', 10_000).intervalMs).toBeLessThan(50);
    // A turn that made no request (its endpoint disabled meanwhile, say) tells nothing of its pace.
    await scheduler.run('whk_b', 'whk_b', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return 'endpoint_disabled';
    });
    void scheduler.run('whk_b', 'whk_b', () => new Promise<string>(() => undefined));
    expect(scheduler.pace('whk_b', 10_000)).toEqual({ intervalMs: 0, drainMs: 10_000 });
    scheduler.close();
  });

  it("remembers an endpoint's pace after it gave up its share, for its next burst", async () => {
    const scheduler = new FairSendScheduler(2, 2, 60_000);
    const { send } = recorder(scheduler);
    await send('whk_a', 'a0', Promise.resolve('ok'));
    // Idle for longer than it keeps its share: its lane goes.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    void send('whk_a', 'a1');
    expect(scheduler.pace('whk_a', 10_000).drainMs).toBeLessThan(100);
    void send('whk_b', 'b0');
    expect(scheduler.pace('whk_b', 10_000)).toEqual({ intervalMs: 0, drainMs: 10_000 });
    scheduler.close();
  });

  it('admits up to its share of held sends, and gives back the newest when a new endpoint shrinks it', async () => {
    const scheduler = new FairSendScheduler(2, 2, 60_000);
    const { started, send } = recorder(scheduler);
    const turns: Promise<SendTurn<string>>[] = [];
    let admitted = 0;
    for (let i = 0; i < 6; i++) {
      if (!scheduler.admits('whk_a')) continue;
      admitted++;
      turns.push(send('whk_a', `a${i}`));
    }
    // Share 2 of 2 slots, 2 held per slot.
    expect(admitted).toBe(4);
    // No send of whk_a has ended: its pace is unknown, and what it gives back is due within a deadline.
    expect(scheduler.pace('whk_a', 1000)).toEqual({ intervalMs: 0, drainMs: 1000 });
    void send('whk_b', 'b0');
    // Share 1 now: whk_a may hold 2, its two running; the two waiting are given back, unsent.
    await expect(turns[2]).resolves.toEqual({ ran: false });
    await expect(turns[3]).resolves.toEqual({ ran: false });
    expect(scheduler.admits('whk_a')).toBe(false);
    expect(scheduler.admits('whk_new')).toBe(true);
    expect(started).toEqual(['a0', 'a1']);
  });

  it('lets an endpoint whose sends take long hold only what it sends in the drain budget, at least 2 rounds', async () => {
    // A 40 ms budget: once a send has taken 30 ms or more, one round of it does not fit.
    const scheduler = new FairSendScheduler(1, 16, 40);
    const { started, send } = recorder(scheduler);
    const slow = new Promise<string>((resolve) => setTimeout(() => resolve('late'), 30));
    const turns = [send('whk_slow', 's0', slow), ...[1, 2, 3, 4, 5].map((i) => send('whk_slow', `s${i}`))];
    expect(scheduler.admits('whk_slow')).toBe(true);
    await turns[0];
    // s1 runs, s2 waits: the two rounds it may hold; s3 to s5 are given back.
    await expect(Promise.all(turns.slice(3))).resolves.toEqual([
      { ran: false },
      { ran: false },
      { ran: false },
    ]);
    expect(started).toEqual(['s0', 's1']);
    expect(scheduler.admits('whk_slow')).toBe(false);
  });

  it("holds an account to its share's rounds over all its endpoints, and gives back the rest at once", async () => {
    // A 40 ms budget: once a send has taken 30 ms, the account may hold 2 rounds of its share.
    const scheduler = new FairSendScheduler(2, 16, 40);
    const { started, send } = recorder(scheduler);
    const slow = new Promise<string>((resolve) => setTimeout(() => resolve('late'), 30));
    const first = send('whk_0', 's0', slow, 'acct_x:live');
    void send('whk_1', 'x1', undefined, 'acct_x:live');
    // Its pace unknown, the account holds 20 more over ten endpoints (2 each, under 16 per slot).
    const turns: Promise<SendTurn<string>>[] = [];
    for (let i = 0; i < 20; i++) {
      expect(scheduler.admits(`whk_${i % 10}`)).toBe(true);
      turns.push(send(`whk_${i % 10}`, `w${i}`, undefined, 'acct_x:live'));
    }
    await first;
    // Its rounds now: 2 for whk_0 (30 ms a send), 16 for two endpoints whose pace it learns (one
    // per slot), 2 at the account's pace for the seven others: 4.8 on average, 9 held of 2 slots.
    // The 12 newest go back, though each endpoint holds less than 16 rounds of its own share.
    await expect(Promise.all(turns.slice(8))).resolves.toEqual(turns.slice(8).map(() => ({ ran: false })));
    expect(started).toEqual(['s0', 'x1', 'w0']);
    // An endpoint of the account new here is let in, and given back at once; another account is not.
    await expect(send('whk_new', 'n0', undefined, 'acct_x:live')).resolves.toEqual({ ran: false });
    expect(scheduler.admits('whk_other')).toBe(true);
    scheduler.close();
    await expect(Promise.all(turns.slice(1, 8))).resolves.toEqual(
      turns.slice(1, 8).map(() => ({ ran: false })),
    );
  });

  it('lets an endpoint keep its share for a second or two after its last send ends', async () => {
    const scheduler = new FairSendScheduler(2, 16, 60_000);
    const { started, send } = recorder(scheduler);
    const silent = pending();
    void send('whk_fast', 'f0', Promise.resolve('ok'));
    void send('whk_silent', 's0', silent.promise);
    void send('whk_silent', 's1');
    await tick();
    // The fast endpoint has nothing left to send, yet keeps its share (one slot) for a while.
    expect(started).toEqual(['f0', 's0']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(started).toEqual(['f0', 's0']);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(started).toEqual(['f0', 's0', 's1']);
    scheduler.close();
  });

  it('holds back no burst to an endpoint it knows to be fast', async () => {
    const scheduler = new FairSendScheduler(1, 2, 60_000);
    const { send } = recorder(scheduler);
    await send('whk_fast', 'f0', Promise.resolve('ok'));
    // Its pace known (a send took well under the budget), it may hold far more than 2 per slot.
    const turns = Array.from({ length: 20 }, (_, i) => {
      expect(scheduler.admits('whk_fast')).toBe(true);
      return send('whk_fast', `f${i + 1}`, Promise.resolve('ok'));
    });
    await expect(Promise.all(turns)).resolves.toEqual(turns.map(() => ({ ran: true, value: 'ok' })));
    scheduler.close();
  });
});
