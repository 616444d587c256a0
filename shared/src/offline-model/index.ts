// The offline model: a scripted, OpenAI-compatible server for demos and tests.
// It never pretends to be a model; whatever shows its output shows this label too.

export const SCRIPTED_DEMO_LABEL = "scripted demo (offline model, no AI)";

export { startOfflineModel, DEFAULT_API_KEY, DEFAULT_MODEL } from "./server.ts";
export type { OfflineModel, OfflineModelOptions } from "./server.ts";
export {
  loadScript,
  parseScript,
  listScripts,
  selectStep,
  notTheDemoRepository,
  ScriptError,
  SCRIPTS_DIR,
  LAST_USER_MESSAGE_PLACEHOLDER,
} from "./script.ts";
export type { Script, ScriptStep, ScriptedToolCall, StepSelection } from "./script.ts";
export type { Fault } from "./faults.ts";
export { FAULT_FIELDS } from "./faults.ts";
export type {
  ChatRequestBody,
  WireMessage,
  WireToolCall,
  WireToolDefinition,
  WireUsage,
} from "./wire-types.ts";
