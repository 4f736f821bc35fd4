/**
 * The Redis key layout of Holdpoint. Every key of one session carries the hash tag
 * `{s:<sessionId>}`, so a session's keys share one Redis Cluster slot and one Lua
 * script may change them all atomically. The `app:` and `user:` state an app's
 * sessions share carries `{a:<app>}`. The indexes that find paused sessions and
 * approvals share `{index}`. A session's commit script writes its session's keys and
 * the index entries the commit makes true (each owner's list of sessions, `sessionsOf`, too) in one step: the store runs on one Redis
 * (not a Cluster), where a script may touch keys of several slots.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {
    // A brace in the prefix would become the hash tag and put every session in one slot.
    if (/[{}]/.test(prefix)) throw new Error(`A Redis key prefix cannot contain braces: ${prefix}`);
  }

  private session(sessionId: string, name: string): string {
    return `${this.prefix}:{s:${sessionId}}:${name}`;
  }

  /**
   * String: the session's record, as lua/commit-session.lua writes it and
   * redis-session-record.ts reads it: its version, expiry, latest commits, what each item
   * of its log is, and the ADK record, with the meta record and the latest pause's and
   * run's.
   */
  record(sessionId: string): string {
    return this.session(sessionId, 'record');
  }

  /** Hash: the session's pauses and runs that are not its latest, `pause:<id>`, `run:<id>`. */
  archive(sessionId: string): string {
    return this.session(sessionId, 'archive');
  }

  /**
   * Hash: the session record as a release before `record` kept it (version, the meta
   * record as `data`, every pause and run as a field); the first read of such a
   * session moves it over (upgrade-session.lua), keeping this hash as its `archive`.
   */
  meta(sessionId: string): string {
    return this.session(sessionId, 'meta');
  }

  /**
   * String: present while someone, in any process, listens to the session's run events
   * (RedisRelay keeps it, with a short expiry); its commits answer whether it is there,
   * so the session's events are published only then.
   */
  watched(sessionId: string): string {
    return this.session(sessionId, 'watched');
  }

  /**
   * String: present while someone, in any process, listens to the inbox channel
   * (INBOX_CHANNEL; RedisRelay keeps it as it keeps `watched`); every commit answers
   * whether it is there, so inbox news is published only then.
   */
  inboxWatched(): string {
    return `${this.prefix}:{index}:inbox-watched`;
  }

  /**
   * List of audit lines, as a release before record layout 3 kept them; the session's
   * upgrade (upgrade-session.lua) moves them to its log (`events`) and deletes it.
   */
  audit(sessionId: string): string {
    return this.session(sessionId, 'audit');
  }

  /**
   * List: the session's log, its ADK events and audit lines in the order they were
   * stored (what each item is, the record says: see lua/commit-session.lua).
   */
  events(sessionId: string): string {
    return this.session(sessionId, 'events');
  }

  /**
   * Hash: event id → index in the events list, as a release before `record` kept it; the
   * session's upgrade (upgrade-session.lua) moves it into the record and deletes it.
   */
  eventIndex(sessionId: string): string {
    return this.session(sessionId, 'event-index');
  }

  /** Hash: session-scoped ADK state, key → JSON value. */
  state(sessionId: string): string {
    return this.session(sessionId, 'state');
  }

  /** Zset of paused session ids scored by their pause's expiresAt. */
  paused(): string {
    return `${this.prefix}:{index}:paused`;
  }

  /**
   * Zset of the paused session ids whose approvals an audience (`user:<id>`,
   * `role:<name>`) may decide, scored like `paused`; and a member '' scored 0, so that the
   * key is never emptied (and deleted) while its marker (`pausedForKept`) says how long it
   * is kept. Readers read from a score above 0.
   */
  pausedFor(audience: string): string {
    return `${this.prefix}:{index}:paused-for:${audience}`;
  }

  /**
   * Zset of one owner's session ids, scored by when each leaves the list (its last
   * update + session TTL), written by the session's write script; kept as long as the
   * owner's latest session by the user's marker (`userKept`).
   */
  sessionsOf(userId: string): string {
    return `${this.prefix}:{index}:sessions-of:${userId}`;
  }

  /**
   * String: until when (ms) the paused index of an audience (`pausedFor`) is kept at least;
   * expires then. Its commits move the index's expiry only when this falls short.
   */
  pausedForKept(audience: string): string {
    return `${this.prefix}:{index}:paused-for-kept:${audience}`;
  }

  /** String: the session an approval id belongs to. */
  approval(approvalId: string): string {
    return `${this.prefix}:{index}:approval:${approvalId}`;
  }

  /**
   * Sorted set: sessions with a running segment, scored by its lease's end (as of
   * when it was entered or last seen); those scored by now may be interrupted.
   */
  running(): string {
    return `${this.prefix}:{index}:running`;
  }

  /** String: the session a run (invocation id) belongs to. */
  run(invocationId: string): string {
    return `${this.prefix}:{index}:run:${invocationId}`;
  }

  /**
   * Hash: how many approvals wait for people, field `<app>\u001f<tool>` → count, moved by
   * the commits that make approvals wait or stop (never below zero). One field per app
   * and tool that ever had an approval wait, kept at zero: it never grows past those.
   */
  waiting(): string {
    return `${this.prefix}:{index}:waiting`;
  }

  /**
   * Zset of the paused sessions whose pending pause has an SLA step to take (a reminder,
   * an escalation, the deadline), scored by when the next one is due (nextSlaAt).
   */
  slaDue(): string {
    return `${this.prefix}:{index}:sla-due`;
  }

  /** String: a person's out-of-office delegation, expiring when it ends. */
  delegation(userId: string): string {
    return `${this.prefix}:{index}:delegation:${userId}`;
  }

  /** Zset of the people who delegated to `delegate`, scored by when each delegation ends. */
  delegatesTo(delegate: string): string {
    return `${this.prefix}:{index}:delegates-to:${delegate}`;
  }

  /** String: one grant, expiring a session TTL after the grant does. */
  grant(grantId: string): string {
    return `${this.prefix}:{index}:grant:${grantId}`;
  }

  /**
   * Zset of one user's grant ids, scored by when each was made (read newest first);
   * expires with its latest grant's record.
   */
  grantsOf(userId: string): string {
    return `${this.prefix}:{index}:grants-of:${userId}`;
  }

  /**
   * Zset of the ids of one user's grants on one tool of one app, scored by when each
   * expires (those scored after now may be in force); expires with its latest grant.
   */
  grantsFor(userId: string, app: string, toolName: string): string {
    return `${this.prefix}:{index}:grants-for:${JSON.stringify([userId, app, toolName])}`;
  }

  /**
   * Hash: one delivery of the outbox. `data` (what never changes: ids, event, channel,
   * recipient, createdAt, as JSON) and one field per changing one ('' when absent);
   * expires with the retention.
   */
  delivery(deliveryId: string): string {
    return `${this.prefix}:{index}:delivery:${deliveryId}`;
  }

  /** Zset of deliveries waiting for an attempt, scored by when the next one is due. */
  deliveriesDue(): string {
    return `${this.prefix}:{index}:deliveries-due`;
  }

  /**
   * Zset of deliveries scored by when they were written (read newest first): all of them,
   * or those with `status`.
   */
  deliveries(status?: string): string {
    return `${this.prefix}:{index}:deliveries${status ? `:${status}` : ''}`;
  }

  /** String: the instance that runs the expiry sweep now. */
  sweeper(): string {
    return `${this.prefix}:{index}:sweeper`;
  }

  /** String: written by the readiness check while commits are refused, to learn when they are not. */
  readiness(): string {
    return `${this.prefix}:{index}:readiness`;
  }

  private app(appName: string, name: string): string {
    return `${this.prefix}:{a:${appName}}:${name}`;
  }

  /** Hash: ADK `app:` state of one app, key (without prefix) → JSON value. */
  appState(appName: string): string {
    return this.app(appName, 'state');
  }

  /** Hash: ADK `user:` state of one user of one app, key (without prefix) → JSON value. */
  userState(appName: string, userId: string): string {
    return this.app(appName, `user:${userId}:state`);
  }

  /**
   * String `<until> <1|0>`: until when (ms) the owner's list (`sessionsOf`) and this
   * user's `user:` state are kept at least, and whether the user had `user:` state then (or
   * has since); expires then. A session's commits move those keys' expiries only when
   * this falls short (lua/commit-session.lua), and its read leaves out the state it says
   * is not there (lua/read-session.lua).
   */
  userKept(appName: string, userId: string): string {
    return this.app(appName, `user:${userId}:kept`);
  }

  /**
   * String: '1' when the app has `app:` state, '0' when it had none when a commit last
   * looked (set to '1' as soon as some is written): a session is read without the app's
   * state when this says it has none (lua/read-session.lua).
   */
  appHasState(appName: string): string {
    return this.app(appName, 'has-state');
  }

  /** Hash: what ADK's memory service keeps for one user of one app, source id → memories. */
  userMemories(appName: string, userId: string): string {
    return this.app(appName, `user:${userId}:memories`);
  }

  /** Pub/sub channel of a session's run messages. */
  relay(sessionId: string): string {
    return `${this.prefix}:relay:${sessionId}`;
  }

  effect(key: string): string {
    return `${this.prefix}:effect:${key}`;
  }

  /** String: set when an approved tool call with this effect key started to run. */
  effectStarted(key: string): string {
    return `${this.prefix}:effect-started:${key}`;
  }
}
