import { DEFAULT_APP } from '../agents/app-registry.js';
import { loadConfig } from '../config/config.js';
import { HoldpointError, isHoldpointError } from '../core/errors.js';
import { createHoldpoint } from '../main/create-holdpoint.js';
import { startServer } from '../main/serve.js';
import { runChat } from '../transports/cli/chat.js';

const USAGE = `Usage:
  holdpoint serve [--port 3000] [--store memory|redis] [--redis-url URL] [--pause-ttl SECONDS]
  holdpoint chat [--app image-studio|payments|picker] [--user NAME] [--store memory|redis] …
Settings also come from PORT, HOLDPOINT_STORE, REDIS_URL, HOLDPOINT_PAUSE_TTL_SECONDS, … (README).`;

/** Takes `--name value` out of argv, returning its value. */
function takeFlag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const [, value] = argv.splice(index, 2);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'serve') {
    const server = await startServer(loadConfig(rest));
    const stop = () => {
      server.close().finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (command === 'chat') {
    const app = takeFlag(rest, 'app') ?? DEFAULT_APP;
    const userId = takeFlag(rest, 'user') ?? process.env.USER ?? 'cli';
    const config = loadConfig(rest, {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    });
    const holdpoint = createHoldpoint(config);
    if (!holdpoint.runtime.appNames.includes(app)) {
      await holdpoint.runtime.close();
      throw new HoldpointError(
        'UNKNOWN_APP',
        `Unknown app ${app}. Known apps: ${holdpoint.runtime.appNames.join(', ')}.`,
      );
    }
    try {
      await runChat({
        runtime: holdpoint.runtime,
        app,
        userId,
        input: process.stdin,
        output: process.stdout,
      });
    } finally {
      await holdpoint.runtime.close();
    }
    return;
  }
  process.stdout.write(`${USAGE}\n`);
  if (command !== 'help' && command !== '--help') process.exitCode = 2;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = isHoldpointError(error) ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`holdpoint: ${message}\n${USAGE}\n`);
  process.exit(1);
});
