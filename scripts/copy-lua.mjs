// Copies the Redis store's Lua scripts beside the compiled modules that read them
// (src/store/redis/lua/ → dist/store/redis/lua/): tsc emits only what it compiles.
import { cpSync } from 'node:fs';

cpSync('src/store/redis/lua', 'dist/store/redis/lua', { recursive: true });
