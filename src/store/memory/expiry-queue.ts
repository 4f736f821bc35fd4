interface Entry {
  at: number;
  member: string;
}

/**
 * Members by when they expire, for taking those that are due. Every commit moves its
 * session's expiry to the end, so this is a binary heap of (time, member) beside each
 * member's current time: a move pushes a new entry in O(log n) (a sorted array shifts
 * every later entry), and the entry it replaces stays behind, skipped when it comes to
 * the top; the heap is rebuilt from the current times once left entries outnumber them.
 */
export class ExpiryQueue {
  private readonly times = new Map<string, number>();
  private heap: Entry[] = [];

  /** How many members it holds. */
  get size(): number {
    return this.times.size;
  }

  /** Adds `member`, due at `at`, or moves it there. */
  set(member: string, at: number): void {
    if (this.times.get(member) === at) return;
    this.times.set(member, at);
    this.push({ at, member });
    if (this.heap.length > 2 * this.times.size + 64) this.rebuild();
  }

  delete(member: string): void {
    this.times.delete(member);
  }

  /** Takes out the members due by `now` (due at or before it), earliest first, at most `limit`. */
  takeDue(now: number, limit: number): string[] {
    const due: string[] = [];
    while (due.length < limit) {
      const top = this.heap[0];
      if (!top) break;
      const current = this.times.get(top.member);
      if (current === top.at && top.at > now) break;
      this.pop();
      // An entry a later move or a removal left behind is dropped as it comes up.
      if (current !== top.at) continue;
      this.times.delete(top.member);
      due.push(top.member);
    }
    return due;
  }

  private push(entry: Entry): void {
    const { heap } = this;
    let at = heap.push(entry) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if ((heap[parent] as Entry).at <= entry.at) break;
      heap[at] = heap[parent] as Entry;
      at = parent;
    }
    heap[at] = entry;
  }

  private pop(): void {
    const { heap } = this;
    const last = heap.pop() as Entry;
    if (heap.length === 0) return;
    this.siftDown(0, last);
  }

  /** Puts `entry` at `from`, moving it down below every entry due sooner. */
  private siftDown(from: number, entry: Entry): void {
    const { heap } = this;
    let at = from;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= heap.length) break;
      const right = child + 1;
      if (right < heap.length && (heap[right] as Entry).at < (heap[child] as Entry).at)
        child = right;
      if ((heap[child] as Entry).at >= entry.at) break;
      heap[at] = heap[child] as Entry;
      at = child;
    }
    heap[at] = entry;
  }

  /** The heap of the current times only. */
  private rebuild(): void {
    this.heap = [...this.times].map(([member, at]) => ({ at, member }));
    for (let at = (this.heap.length >> 1) - 1; at >= 0; at--) {
      this.siftDown(at, this.heap[at] as Entry);
    }
  }
}
