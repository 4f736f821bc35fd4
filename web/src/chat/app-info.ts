import type { ApiApp } from 'holdpoint/react';

/** What the UI shows of an app. */
export type AppInfo = Pick<ApiApp, 'name' | 'label' | 'description' | 'examples'>;

/** The app named `name` among `apps`; one the server does not serve shows as its bare name. */
export function appInfo(apps: ApiApp[], name: string): AppInfo {
  return (
    apps.find((app) => app.name === name) ?? { name, label: name, description: '', examples: [] }
  );
}
