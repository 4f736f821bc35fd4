import { HoldpointError } from '../../../core/errors.js';
import { appName, validate } from '../../../core/validate.js';
import type { AppSummary, HoldpointRuntime } from '../../../runtime/holdpoint-runtime.js';

/**
 * The app a protocol's path names (`/api/ag-ui/:app`, `/api/a2a/:app`, `/api/mcp/:app`):
 * VALIDATION_FAILED for a name out of bounds, UNKNOWN_APP for one the server does not serve.
 */
export function pathApp(runtime: HoldpointRuntime, params: Record<string, string>): AppSummary {
  const name = validate(appName, params.app);
  const app = runtime.apps.find((a) => a.name === name);
  if (!app) {
    throw new HoldpointError(
      'UNKNOWN_APP',
      `Unknown app ${name}. Known apps: ${runtime.appNames.join(', ')}.`,
    );
  }
  return app;
}
