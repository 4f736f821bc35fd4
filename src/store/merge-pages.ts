import type { PageCursor } from './store.js';

/**
 * The first `limit` entries of several pages of sorted indexes read from one cursor
 * with one `limit` each, as one page: by score, then member, each member once.
 * `more` when some index may hold more past them (its page came back full).
 */
export function mergePages(
  pages: PageCursor[][],
  limit: number,
): { entries: PageCursor[]; more: boolean } {
  const byMember = new Map(pages.flat().map((entry) => [entry.member, entry]));
  const entries = [...byMember.values()]
    .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
    .slice(0, limit);
  return { entries, more: pages.some((page) => page.length === limit) };
}
