import { settingsHelp } from '../config/settings-help.js';

/** What `holdpoint --help` prints: the commands, then every setting. */
export const USAGE = `Usage:
  holdpoint init [DIR]                 (a new project: an app with one approval tool, a config
                                      file and npm scripts; then npm install && npm start)
  holdpoint serve [--app ./agents/my-app.ts]… [--config holdpoint.config.ts] [--port 3000]
                  [--store sqlite|postgres|redis|memory] [--data-dir DIR] [--pause-ttl SECONDS] …
  holdpoint chat [--app NAME | --app ./agents/my-app.ts] [--session ID] [--user NAME]
                 [--roles a,b] [--token TOKEN] [--store sqlite|postgres|redis|memory] …
  holdpoint chat --url http://127.0.0.1:3000 [--app NAME] [--session ID]
                 [--user NAME --roles a,b | --token TOKEN]   (a running server's sessions)
  holdpoint resume <invocation-id> [--user NAME] [--token TOKEN] [--store …] …
                                                                    (an interrupted run)
  holdpoint db migrate [--to VERSION] [--store sqlite|postgres] …
                                      (brings the SQL store's schema up to date)
  holdpoint db stats [--store …] …    (what the store holds, as JSON)
  holdpoint keys new --principal NAME [--roles a,b]   (an API key, and the entry that admits it)
  holdpoint audit verify <file.ndjson | ->   (an exported audit log; exits 1 when broken)
                 [--session ID]   (the session it must be of; else the one its header names)
                 [--checkpoints FILE --public-key key.pub.pem]…
                                      (and against signed checkpoints: rewritten or cut short)
  holdpoint audit keygen --out key.pem   (a key to sign audit checkpoints, and key.pub.pem)
  holdpoint grants list [--of USER] [--url http://127.0.0.1:3000]
                 [--user NAME --roles a,b | --token TOKEN]   (a running server's grants)
  holdpoint grants revoke <grant-id> [--url …] [--user NAME | --token TOKEN]
  holdpoint api                        (every operation of the REST API, by resource)
  holdpoint api <operation> [--param NAME=VALUE]… [--query NAME=VALUE]… [--body JSON|@FILE|@-]
                 [--url …] [--user NAME --roles a,b | --token TOKEN]
                                      (calls one on a running server; prints its JSON answer)
The store is SQLite in --data-dir (default .holdpoint in the working directory) unless
--store says otherwise (docs/stores.md). Apps come from --app (repeatable) or
holdpoint.config.ts. Every setting is a flag, an environment variable or a config file
key (its long name); flags win over the environment, which wins over the file
(docs/configuration.md says what each does).

${settingsHelp()}`;
