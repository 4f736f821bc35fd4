import type { ApiApp } from '../api/api-types';

/** The app named `name` among `apps`; one the server does not serve shows as its bare name. */
export function appInfo(apps: ApiApp[], name: string): ApiApp {
  return (
    apps.find((app) => app.name === name) ?? { name, label: name, description: '', examples: [] }
  );
}
