import { BasePlugin } from '@google/adk';

/**
 * The base of Holdpoint's own Runner plugins. ADK calls every plugin's hooks, and its
 * base versions of the experimental ones warn once a process that they may change;
 * Holdpoint's plugins use none of them, so they answer them quietly here.
 */
export abstract class HoldpointPlugin extends BasePlugin {
  override async beforeToolSelection(): Promise<undefined> {
    return undefined;
  }

  override async beforeContextCompaction(): Promise<void> {}

  override async afterContextCompaction(): Promise<void> {}
}
