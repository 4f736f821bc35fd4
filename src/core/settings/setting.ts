import type { z } from 'zod';

/**
 * One setting of Holdpoint, declared once: everything that reads, checks, documents or
 * defaults it (the config file's key is its name in `SETTINGS`) derives from this.
 */
export interface Setting<S extends z.ZodType = z.ZodType, D = unknown> {
  /**
   * Its value as a config file (or `createHoldpoint`) gives it; the text of a flag or an
   * environment variable becomes a number first where the value is one.
   */
  readonly schema: S;
  /** What it is when nothing sets it; none for a setting that may stay unset. */
  readonly default?: D;
  /** The command-line flag, without `--`. */
  readonly flag: string;
  /** The environment variable. */
  readonly env: string;
  /** The flag repeats, and the variable separates values with commas. */
  readonly multiple?: true;
  /** What the flag takes, in `--help`: `SECONDS`, `URL`, `memory|redis`. */
  readonly placeholder: string;
  /** What it does, in Markdown: the settings table's meaning. */
  readonly doc: string;
  /** The settings table's default when it is not the value itself (`random per process`). */
  readonly defaultDoc?: string;
  /**
   * `createHoldpoint` takes it too, under its name and checked by its schema, and the
   * runtime gets its value (`RuntimeOptions.settings`): a config file, the command and
   * code set it alike.
   */
  readonly option?: boolean;
}

/** A setting, its default typed by its schema; whether it is an option of `createHoldpoint` kept in its type. */
export function setting<
  S extends z.ZodType,
  D extends z.output<S> | undefined = undefined,
  O extends boolean = false,
>(entry: Setting<S, D> & { readonly option?: O }): Setting<S, D> & { readonly option?: O } {
  return entry;
}
