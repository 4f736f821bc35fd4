import { AUDIT_SETTINGS } from './audit-settings.js';
import { BROWSER_SETTINGS } from './browser-settings.js';
import { LIMIT_SETTINGS } from './limit-settings.js';
import { NOTIFY_SETTINGS } from './notify-settings.js';
import { RUN_SETTINGS } from './run-settings.js';
import { SERVING_SETTINGS } from './serving-settings.js';
import { SIGN_IN_SETTINGS } from './sign-in-settings.js';
import { STORE_SETTINGS } from './store-settings.js';

/** The settings by group, in the order `--help` and the settings table list them. */
export const SETTING_GROUPS = [
  { heading: 'Serving', settings: SERVING_SETTINGS },
  { heading: 'Store', settings: STORE_SETTINGS },
  { heading: 'Runs and approvals', settings: RUN_SETTINGS },
  { heading: 'Sign-in', settings: SIGN_IN_SETTINGS },
  { heading: 'Notifications', settings: NOTIFY_SETTINGS },
  { heading: 'Audit checkpoints', settings: AUDIT_SETTINGS },
  { heading: 'Browsers', settings: BROWSER_SETTINGS },
  { heading: 'Limits (0 turns one off)', settings: LIMIT_SETTINGS },
] as const;

/**
 * Every setting of `holdpoint serve` (and the other commands), by its long name: the
 * config file's key.
 */
export const SETTINGS = {
  ...SERVING_SETTINGS,
  ...STORE_SETTINGS,
  ...RUN_SETTINGS,
  ...SIGN_IN_SETTINGS,
  ...NOTIFY_SETTINGS,
  ...AUDIT_SETTINGS,
  ...BROWSER_SETTINGS,
  ...LIMIT_SETTINGS,
};
