import { z } from 'zod';

// The server's Content-Security-Policy forbids eval. Zod (inside the AI SDK) would probe
// for it with `Function('')` on its first parse, which works without but makes the
// browser report a policy violation; jitless never probes.
z.config({ jitless: true });
