/**
 * A failure a tool reports on purpose. The model reads it, so it carries a
 * stable code (for tests and for the model to recognise) and a hint that
 * names the next step.
 */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "ToolError";
  }
}
