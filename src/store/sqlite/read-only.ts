import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';

/** What a refused `access(W_OK)` means, by its code: the place is read-only. */
const READ_ONLY: Record<string, string> = {
  EROFS: 'is read-only (a read-only file system, EROFS)',
  EACCES: 'is read-only to this process (no write permission, EACCES)',
  EPERM: 'is read-only to this process (EPERM)',
};

/**
 * Why the file `path` cannot be written when it is because it, or the directory it is
 * (or is to be made) in, is read-only: "<place> is read-only (…)". SQLite says only
 * "unable to open database file" (or mkdir "no such file or directory") there. The
 * directory is judged first (on a read-only file system, both are), a missing one by the
 * nearest that exists, where it would be made. Undefined when both are writable, or fail
 * otherwise (opening the file then says how).
 */
export function whyReadOnly(path: string): string | undefined {
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  for (const place of existsSync(path) ? [dir, path] : [dir]) {
    try {
      accessSync(place, constants.W_OK);
    } catch (error) {
      const why = READ_ONLY[(error as NodeJS.ErrnoException).code ?? ''];
      if (why) return `${place} ${why}`;
    }
  }
  return undefined;
}
