import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** A page of a database file that is none of SQLite's, and why. */
export interface DamagedPage {
  page: number;
  why: string;
}

/** What the database header says of the pages (SQLite's file format, "The database header"). */
interface Layout {
  pageSize: number;
  /** The bytes of a page SQLite uses: the page size less the bytes reserved at its end. */
  usable: number;
  /** The whole pages of the file. */
  filePages: number;
  /** The highest page number a page may name (a child, the next overflow page). */
  lastPage: number;
  /** Whether the database keeps pointer-map pages (auto-vacuum). */
  autoVacuum: boolean;
  /** The page holding the byte at 1 GiB, which SQLite keeps for its locks and never writes. */
  lockPage: number;
}

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** A b-tree page's first byte: interior index, interior table, leaf index, leaf table. */
const INTERIOR = new Set([2, 5]);
const LEAF = new Set([10, 13]);
/** The most fragmented free bytes SQLite lets a b-tree page have. */
const MAX_FRAGMENTED = 60;
const PENDING_BYTE = 0x40000000;
/** Pages are read this many bytes at a time (one read per mebibyte). */
const CHUNK_BYTES = 1 << 20;

/** The header's layout of the pages of a file of `fileBytes`, or why page 1 is damaged. */
function layoutOf(header: Buffer, fileBytes: number, knownPages: number): Layout | DamagedPage {
  if (!header.subarray(0, MAGIC.length).equals(MAGIC)) {
    return { page: 1, why: 'its header is not a SQLite database header' };
  }
  const sizeField = header.readUInt16BE(16);
  const pageSize = sizeField === 1 ? 65536 : sizeField;
  const usable = pageSize - header.readUInt8(20);
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0 || usable < 480) {
    return { page: 1, why: `its header gives no valid page size (${sizeField})` };
  }
  const filePages = Math.floor(fileBytes / pageSize);
  return {
    pageSize,
    usable,
    filePages,
    lastPage: Math.max(filePages, knownPages),
    autoVacuum: header.readUInt32BE(52) !== 0,
    lockPage: Math.floor(PENDING_BYTE / pageSize) + 1,
  };
}

/** Whether `page` is a pointer-map page of an auto-vacuum database (SQLite's ptrmapPageno). */
function isPointerMap(page: number, { usable, lockPage }: Layout): boolean {
  if (page < 2) return false;
  const perMap = Math.floor(usable / 5) + 1;
  let map = Math.floor((page - 2) / perMap) * perMap + 2;
  if (map === lockPage) map += 1;
  return map === page;
}

/**
 * Why a b-tree page's header (at `at`: 100 on page 1, after the database header) cannot
 * be SQLite's: its cells, content area, free blocks or right child out of the page's
 * bounds, as SQLite's own checks bound them when it reads the page.
 */
function btreeProblem(page: Buffer, at: number, layout: Layout): string | undefined {
  const interior = INTERIOR.has(page.readUInt8(at));
  const pointersEnd = at + (interior ? 12 : 8) + 2 * page.readUInt16BE(at + 3);
  const content = page.readUInt16BE(at + 5) || 65536;
  const freeblock = page.readUInt16BE(at + 1);
  const lastCell = layout.usable - 4;
  if (pointersEnd > content || content > layout.usable) {
    return 'a b-tree page whose cell pointers do not fit before its cells';
  }
  if (page.readUInt8(at + 7) > MAX_FRAGMENTED) {
    return 'a b-tree page with more fragmented bytes than SQLite allows';
  }
  if (freeblock !== 0 && (freeblock < pointersEnd || freeblock > lastCell)) {
    return 'a b-tree page whose first free block is outside it';
  }
  for (let pointer = at + (interior ? 12 : 8); pointer < pointersEnd; pointer += 2) {
    const cell = page.readUInt16BE(pointer);
    if (cell < pointersEnd || cell > lastCell) return 'a b-tree page with a cell outside it';
  }
  const child = interior ? page.readUInt32BE(at + 8) : 1;
  if (child < 1 || child > layout.lastPage) {
    return `a b-tree page naming page ${child} as its child, of ${layout.lastPage}`;
  }
  return undefined;
}

/** Why page number `number` (its bytes `page`) cannot be a page of SQLite's, if it cannot. */
function pageProblem(page: Buffer, number: number, layout: Layout): string | undefined {
  if (number === layout.lockPage) return undefined;
  if (layout.autoVacuum && isPointerMap(number, layout)) {
    for (let entry = 0; entry + 5 <= layout.usable; entry += 5) {
      if (page.readUInt8(entry) > 5) return 'a pointer-map page with an entry of no known type';
    }
    return undefined;
  }
  const at = number === 1 ? 100 : 0;
  const kind = page.readUInt8(at);
  if (INTERIOR.has(kind) || LEAF.has(kind)) return btreeProblem(page, at, layout);
  if (number === 1) return 'its first page is not a b-tree page';
  // Not a b-tree page: an overflow page or a free-list page, each starting with the
  // number of the next such page (0 for none); a free-list leaf keeps what the page held
  // before it was freed, which passes as that page did. Garbage names a page far past
  // the end.
  const next = page.readUInt32BE(0);
  if (next > layout.lastPage) {
    return `neither a b-tree page (its first byte is ${kind}) nor an overflow or free-list page (it names page ${next}, of ${layout.lastPage})`;
  }
  return undefined;
}

/**
 * The first page of the SQLite database file at `path` that cannot be one of SQLite's —
 * bytes written over it that are no b-tree, overflow, free-list or pointer-map page —
 * read from start to end in one pass, a mebibyte at a time: about what reading the file
 * costs (docs/stores.md gives the time at 1 GB), where `PRAGMA quick_check` walks every
 * b-tree, page by page wherever they lie, and takes many times as long from disk. It
 * judges each page by its header, not its records: a page overwritten with garbage is
 * found; one zeroed, or a record changed inside a page, is left to SQLite to find when
 * it reads it ("database disk image is malformed"). `knownPages` is the database's size
 * as SQLite sees it (its WAL included): no page names one past it or the file's end. A
 * page that fails is read again once before it counts, since another process's
 * checkpoint may be writing it as it is read.
 */
export function findDamagedPage(path: string, knownPages = 0): DamagedPage | undefined {
  const fd = openSync(path, 'r');
  try {
    const header = Buffer.alloc(100);
    if (readSync(fd, header, 0, 100, 0) < 100) return undefined;
    const layout = layoutOf(header, fstatSync(fd).size, knownPages);
    if ('why' in layout) return layout;
    const chunk = Buffer.alloc(Math.max(CHUNK_BYTES, layout.pageSize));
    const pageAgain = Buffer.alloc(layout.pageSize);
    for (let first = 1; first <= layout.filePages; ) {
      const read = readSync(fd, chunk, 0, chunk.length, (first - 1) * layout.pageSize);
      const pages = Math.floor(read / layout.pageSize);
      if (pages === 0) break;
      for (let i = 0; i < pages; i += 1) {
        const number = first + i;
        const page = chunk.subarray(i * layout.pageSize, (i + 1) * layout.pageSize);
        if (pageProblem(page, number, layout) === undefined) continue;
        readSync(fd, pageAgain, 0, layout.pageSize, (number - 1) * layout.pageSize);
        const why = pageProblem(pageAgain, number, layout);
        if (why !== undefined) return { page: number, why };
      }
      first += pages;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
