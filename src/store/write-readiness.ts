import { type HoldpointError, isHoldpointError } from '../core/errors.js';

/**
 * Whether a store's writes go through, as its last write found. A store can answer reads
 * (a ping) while it refuses every write — a full disk, a read-only file, Redis refusing
 * writes (MISCONF) — so the refusal of a write (STORE_UNAVAILABLE: nothing was stored) is
 * kept, and forgotten once a write is stored. While writes go through, `check` costs
 * nothing: a store that merely waits is not written to by its probes. After a refusal,
 * each check tries the store's own small write (`probe`), so readiness comes back once
 * the store takes writes again, without waiting for a caller's write.
 */
export class WriteReadiness {
  private refusal: HoldpointError | undefined;

  constructor(private readonly probe: () => Promise<void>) {}

  /**
   * Runs `write`, keeping its STORE_UNAVAILABLE as the refusal; `wrote` says, of its
   * result, whether it stored anything (a compare-and-set that lost wrote nothing).
   */
  async track<T>(write: () => Promise<T>, wrote: (result: T) => boolean): Promise<T> {
    try {
      const result = await write();
      if (wrote(result)) this.refusal = undefined;
      return result;
    } catch (error) {
      if (isHoldpointError(error, 'STORE_UNAVAILABLE')) this.refusal = error;
      throw error;
    }
  }

  /**
   * Resolves when writes go through: at once when the last write was stored (or none was
   * refused), else once the probe's write is stored; rejects with the probe's failure.
   */
  async check(): Promise<void> {
    if (this.refusal) await this.track(this.probe, () => true);
  }
}
