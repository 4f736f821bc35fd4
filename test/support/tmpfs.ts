import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Test support: a file system of the test's own, a tmpfs of `sizeKiB` mounted on a new
 * temporary directory, so a test can fill its disk or make it read-only for real
 * (permissions alone do not stop root, who runs these tests). Mounting needs root.
 */
export class Tmpfs {
  private constructor(readonly dir: string) {}

  /** Mounts a new tmpfs of `sizeKiB`. */
  static mount(sizeKiB: number): Tmpfs {
    const dir = mkdtempSync(join(tmpdir(), 'hp-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k`, 'tmpfs', dir]);
    return new Tmpfs(dir);
  }

  /** Makes the file system read-only (a remount: its files stay). */
  readOnly(): void {
    execFileSync('mount', ['-o', 'remount,ro', this.dir]);
  }

  /** Unmounts it (lazily: a process the test killed may still hold a file) and removes the directory. */
  unmount(): void {
    execFileSync('umount', ['--lazy', this.dir]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
