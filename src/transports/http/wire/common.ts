import { z } from 'zod';

/** A time on the wire: ISO 8601 in UTC (`2026-01-02T03:04:05.678Z`). */
export const isoTime = z.iso.datetime();

/** A page of a list: its items, and `next_cursor` when there is more. */
export function page<Shape extends z.ZodRawShape>(items: Shape) {
  return z.object({ ...items, next_cursor: z.string().optional() });
}
