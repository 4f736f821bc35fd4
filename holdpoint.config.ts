import { defineConfig } from 'holdpoint';

// What `npm start` (holdpoint serve) loads: the example apps, exactly as a user's apps.
export default defineConfig({
  apps: [
    './examples/image-studio/app.ts',
    './examples/knowledge-assistant/app.ts',
    './examples/payments/app.ts',
    './examples/picker/app.ts',
    './examples/story-flow/app.ts',
  ],
});
