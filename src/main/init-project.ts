import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HoldpointError } from '../core/errors.js';

/** This package's root (where its package.json is), from dist/main/ or src/main/. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The starter's app: one agent, one tool that waits for a person before it runs. */
const APP = `// One agent with one tool that waits for a person: Holdpoint pauses the run at the
// call, keeps it stored, and runs the tool once someone approves it.
import { FunctionTool, LlmAgent } from '@google/adk';
import { defineApp, once, RulesModel } from 'holdpoint';
import { z } from 'zod';

const sendPayment = new FunctionTool({
  name: 'send_payment',
  description: 'Sends an amount of money to a recipient.',
  parameters: z.object({ amount: z.number().positive(), recipient: z.string().min(1) }),
  // The run pauses here until a person approves or rejects the call.
  requireConfirmation: true,
  // once(): the payment is made once, however often the run is resumed or recovered.
  execute: (args, toolContext) => once(toolContext, async () => ({ status: 'sent', ...args })),
});

/** Offline stand-in for an LLM (the default without a Gemini key): "Send 20 to Ann". */
const rules = new RulesModel('starter', (request) => {
  const last = request.contents.at(-1);
  const result = last?.parts?.find((part) => part.functionResponse)?.functionResponse;
  if (result) return { role: 'model', parts: [{ text: \`Done: \${JSON.stringify(result.response)}\` }] };
  const text = last?.parts?.map((part) => part.text ?? '').join('') ?? '';
  const asked = /send \\$?(\\d+(?:\\.\\d+)?) to (\\S+)/i.exec(text);
  if (!asked) return { role: 'model', parts: [{ text: 'Say "Send 20 to Ann".' }] };
  const args = { amount: Number(asked[1]), recipient: asked[2] };
  return { role: 'model', parts: [{ functionCall: { name: 'send_payment', args } }] };
});

export default defineApp({
  name: 'starter',
  description: 'Sends payments once a person approves each one.',
  agent: ({ model }) =>
    new LlmAgent({
      name: 'payments',
      model: model === 'rules' ? rules : model,
      instruction: 'When asked to send money, call send_payment with the amount and the recipient.',
      tools: [sendPayment],
    }),
  approvals: { send_payment: { hint: (args) => \`Send \${args.amount} to \${args.recipient}?\` } },
});
`;

const CONFIG = `import { defineConfig } from 'holdpoint';

// Every setting of docs/configuration.md goes here by its long name (store, port, …).
export default defineConfig({ apps: ['./app.ts'] });
`;

const TSCONFIG = `{
  "compilerOptions": {
    "module": "nodenext",
    "target": "es2022",
    "strict": true,
    "skipLibCheck": true,
    "noEmit": true
  }
}
`;

const README = `# A Holdpoint starter

\`npm install && npm start\`, then open http://localhost:3000 and ask "Send 20 to Ann":
the run pauses until someone approves the payment in the web UI, \`npm run chat\` or the
HTTP API. Runs are kept in \`.holdpoint/\` (SQLite) and survive a restart.

- \`app.ts\`: the agent and the tool that waits for a person.
- \`holdpoint.config.ts\`: the apps served and any setting (store, port, sign-in, …).
`;

/** The package.json of the starter, depending on `tarball` for Holdpoint. */
function packageJson(name: string, tarball: string): string {
  const own = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  return `${JSON.stringify(
    {
      name,
      private: true,
      type: 'module',
      scripts: { start: 'holdpoint serve', chat: 'holdpoint chat' },
      dependencies: {
        '@google/adk': own.peerDependencies['@google/adk'],
        holdpoint: `file:${tarball}`,
        zod: own.dependencies.zod,
      },
    },
    null,
    2,
  )}\n`;
}

/** A package name from a directory's name: lower case, letters, digits and dashes. */
function packageName(dir: string): string {
  const name = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name || 'holdpoint-starter';
}

/**
 * Writes a minimal Holdpoint project into `dir` (made when missing; it must hold none
 * of the files written): an app with one approval tool, a config file, `package.json`
 * scripts, a tsconfig, a README and `.gitignore`, and this Holdpoint packed beside them
 * as a tarball the project depends on, so `npm install && npm start` serves it. Returns
 * the files written.
 */
export function initProject(dir: string): string[] {
  const target = resolve(dir);
  mkdirSync(target, { recursive: true });
  const files: Record<string, string> = {
    'app.ts': APP,
    'holdpoint.config.ts': CONFIG,
    'tsconfig.json': TSCONFIG,
    'README.md': README,
    '.gitignore': 'node_modules/\n.holdpoint/\n',
  };
  const present = [...Object.keys(files), 'package.json'].filter((file) =>
    existsSync(join(target, file)),
  );
  if (present.length > 0) {
    throw new HoldpointError(
      'VALIDATION_FAILED',
      `${target} has ${present.join(', ')} already: init writes a new project, into an empty directory or a new one.`,
      { files: present },
    );
  }
  const before = new Set(readdirSync(target));
  execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', target], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tarball = readdirSync(target).find((file) => !before.has(file) && file.endsWith('.tgz'));
  if (!tarball) throw new HoldpointError('INTERNAL', `npm pack wrote no tarball into ${target}.`);
  files['package.json'] = packageJson(packageName(target), tarball);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(target, file), text);
  return [...Object.keys(files), tarball];
}
