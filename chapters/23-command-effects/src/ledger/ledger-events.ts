import { z } from "zod";

// The ledger's on-disk format: one JSON object per line, each one of these
// events. Field names are snake_case because the files are read by people and
// by other tools, not only by this code. Every event is validated when a
// ledger is replayed, so a hand-edited or half-written file fails loudly.

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, "expected a lowercase hex SHA-256");
const time = z.string(); // ISO 8601, from new Date().toISOString()

export const RunStartEvent = z.object({
  type: z.literal("run_start"),
  time,
  run_id: z.string(),
  task: z.string(),
  model: z.string(),
  cwd: z.string(),
});

// A read of a file. `full` says whether the agent saw the whole file: only a
// full read lets the agent claim it knows the bytes it is about to patch.
export const FileReadEvent = z.object({
  type: z.literal("file_read"),
  time,
  path: z.string(),
  sha256,
  full: z.boolean(),
});

// A write by the agent. `before_sha256` is absent for a new file,
// `after_sha256` is absent for a deleted one. `revision` is the run's
// mutation counter after this write.
export const FileWrittenEvent = z.object({
  type: z.literal("file_written"),
  time,
  path: z.string(),
  before_sha256: sha256.optional(),
  after_sha256: sha256.optional(),
  revision: z.number().int().positive(),
});

export const ToolCallEvent = z.object({
  type: z.literal("tool_call"),
  time,
  tool: z.string(),
  call_id: z.string().optional(),
  outcome: z.enum(["ok", "error"]),
  // A stable error code (`file_changed`, `not_read`, ...) when outcome is "error".
  code: z.string().optional(),
});

export const TokenUsage = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const ModelCallEvent = z.object({
  type: z.literal("model_call"),
  time,
  model: z.string(),
  // null when the server did not report usage: unknown is not zero.
  usage: TokenUsage.nullable(),
});

export const RunEndEvent = z.object({
  type: z.literal("run_end"),
  time,
  // Why the run stopped: "done", "error", "aborted", "budget", ...
  reason: z.string(),
});

// Appended by `undo` to the run it reverted, so the same run is never undone twice.
export const RunUndoneEvent = z.object({
  type: z.literal("run_undone"),
  time,
  files: z.array(z.string()),
});

// A command the agent ran (run_command), numbered 1, 2, ... within the run. `output` is what the
// runner kept: long output is already cut in the middle. `changes`: the files whose hash differs
// after it (the harness compares snapshots); `skipped`: files past the caps, changes unseen.
export const CommandEvent = z.object({
  type: z.literal("command"),
  time,
  n: z.number().int().positive(),
  command: z.string(),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  // Stopped by the user (Ctrl-C).
  aborted: z.boolean(),
  duration_ms: z.number().nonnegative(),
  output: z.string(),
  // What confined it: "bubblewrap", or "none".
  sandbox: z.string(),
  changes: z.array(
    z.object({
      path: z.string(),
      status: z.enum(["created", "changed", "deleted"]),
      before: sha256.nullable(),
      after: sha256.nullable(),
    }),
  ),
  skipped: z.number().int().nonnegative(),
  // What the snapshots could not see or record, as the model read it (absent if nothing was).
  notices: z.array(z.string()).optional(),
});

export const LedgerEvent = z.discriminatedUnion("type", [
  RunStartEvent,
  FileReadEvent,
  FileWrittenEvent,
  ToolCallEvent,
  ModelCallEvent,
  RunEndEvent,
  RunUndoneEvent,
  CommandEvent,
]);
export type LedgerEvent = z.infer<typeof LedgerEvent>;

export type RunStartEvent = z.infer<typeof RunStartEvent>;
export type FileReadEvent = z.infer<typeof FileReadEvent>;
export type FileWrittenEvent = z.infer<typeof FileWrittenEvent>;
export type ToolCallEvent = z.infer<typeof ToolCallEvent>;
export type ModelCallEvent = z.infer<typeof ModelCallEvent>;
export type RunEndEvent = z.infer<typeof RunEndEvent>;
export type RunUndoneEvent = z.infer<typeof RunUndoneEvent>;
export type CommandEvent = z.infer<typeof CommandEvent>;
