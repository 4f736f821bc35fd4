import type { Cancel, Clock } from './clock.js';

interface Repeating {
  every: number;
  next: number;
  task: () => void;
}

/**
 * Test support: a clock that moves only when told. `advance` fires every repeating
 * task whose time came, in time order, as often as it came due.
 */
export class ManualClock implements Clock {
  private readonly tasks = new Set<Repeating>();

  constructor(private current = Date.UTC(2026, 10, 22, 12)) {}

  now(): number {
    return this.current;
  }

  every(ms: number, task: () => void): Cancel {
    const repeating = { every: ms, next: this.current + ms, task };
    this.tasks.add(repeating);
    return () => this.tasks.delete(repeating);
  }

  /** Moves time forward by `ms`, firing what came due on the way. */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = [...this.tasks].filter((t) => t.next <= until).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.current = due.next;
      due.next += due.every;
      due.task();
    }
    this.current = until;
  }
}
