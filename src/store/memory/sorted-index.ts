/** One entry of a sorted index. */
export interface Scored {
  score: number;
  member: string;
}

function compare(a: Scored, b: Scored): number {
  return a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0);
}

/**
 * Members ordered by score, then by member, as in a Redis sorted set: a range from
 * the front costs what it returns, not what the index holds.
 */
export class SortedIndex {
  private readonly scores = new Map<string, number>();
  private readonly entries: Scored[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** The score of `member`, if it is in the index. */
  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** Adds `member`, or moves it to `score`. */
  set(member: string, score: number): void {
    if (this.scores.get(member) === score) return;
    this.delete(member);
    const entry = { score, member };
    // Most moves are to the end (a lifetime, a lease, renewed from now): no search then.
    const last = this.entries.at(-1);
    if (!last || compare(last, entry) < 0) this.entries.push(entry);
    else this.entries.splice(this.position(entry), 0, entry);
    this.scores.set(member, score);
  }

  delete(member: string): void {
    const score = this.scores.get(member);
    if (score === undefined) return;
    this.entries.splice(this.position({ score, member }), 1);
    this.scores.delete(member);
  }

  /**
   * Entries scored from `min` to `max` (inclusive), after `after` (exclusive) when
   * given, in order, at most `limit`.
   */
  range({
    min = Number.NEGATIVE_INFINITY,
    max = Number.POSITIVE_INFINITY,
    after,
    limit,
  }: {
    min?: number;
    max?: number;
    after?: Scored;
    limit: number;
  }): Scored[] {
    let start = this.position({ score: min, member: '' });
    if (after && compare(after, { score: min, member: '' }) >= 0) {
      start = this.position(after);
      const found = this.entries[start];
      if (found && compare(found, after) === 0) start += 1;
    }
    const found: Scored[] = [];
    for (let i = start; i < this.entries.length && found.length < limit; i++) {
      const entry = this.entries[i] as Scored;
      if (entry.score > max) break;
      found.push({ ...entry });
    }
    return found;
  }

  /**
   * Entries scored from `min` (inclusive) up, from the highest down: before `before`
   * (exclusive) when given, at most `limit`.
   */
  rangeDown({
    min = Number.NEGATIVE_INFINITY,
    before,
    limit,
  }: {
    min?: number;
    before?: Scored;
    limit: number;
  }): Scored[] {
    const found: Scored[] = [];
    const end = before ? this.position(before) : this.entries.length;
    for (let i = end - 1; i >= 0 && found.length < limit; i--) {
      const entry = this.entries[i] as Scored;
      if (entry.score < min) break;
      found.push({ ...entry });
    }
    return found;
  }

  /** The index of the first entry not before `entry`. */
  private position(entry: Scored): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(this.entries[middle] as Scored, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
