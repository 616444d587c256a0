import type OpenAI from "openai";
import {
  addMessages,
  requestMessages,
  startConversation,
  type Conversation,
} from "./conversation.ts";
import type { ModelEndpoint } from "../model/model-endpoint.ts";
import { describeModelError, isAbort } from "../model/model-errors.ts";
import { visible } from "../terminal/visible-text.ts";
import type { ChatResult } from "../model/stream-assembler.ts";
import { streamChat } from "../model/model-client.ts";

export interface ChatOptions {
  client: OpenAI;
  endpoint: ModelEndpoint;
  /** Each line is one turn (or a command). The chat ends when the lines do (Ctrl-D, end of pipe). */
  lines: AsyncIterable<string> | Iterable<string>;
  /** Answer text, as it streams (stdout). */
  write: (text: string) => void;
  /** One-line notices: usage, errors (stderr). */
  note: (line: string) => void;
  /** Interactive: show a prompt before each line, and keep going after a failed turn. */
  interactive: boolean;
  prompt?: () => void;
  /** Told how to abort the answer in progress (undefined between answers), for Ctrl-C. */
  onAbortable?: (abort: (() => void) | undefined) => void;
  systemPrompt?: string;
}

export const CHAT_HELP = "commands: /reset (forget the conversation), /exit (or Ctrl-D)";

type TurnOutcome =
  { kind: "answered"; conversation: Conversation } | { kind: "failed" | "aborted" };

/**
 * A chat with memory: every request carries the whole conversation so far. Nothing limits its
 * size yet: a long chat outgrows the model's context window (chapter 6 counts and trims).
 * Returns the exit code. An interactive chat carries on after a failed or aborted turn; a piped
 * one stops there (1 for an error, 130 for Ctrl-C), since nobody is there to react.
 */
export async function runChat(options: ChatOptions): Promise<number> {
  const { lines, note, interactive } = options;
  let conversation = startConversation(options.systemPrompt);
  options.prompt?.();
  for await (const rawLine of lines) {
    const line = rawLine.trim();
    if (line === "/exit") break;
    if (line === "/reset") {
      conversation = startConversation(options.systemPrompt);
      note("context: conversation reset");
    } else if (/^\/\S+$/.test(line)) {
      note(`unknown command ${line}: ${CHAT_HELP}`);
    } else if (line !== "") {
      const outcome = await runTurn(conversation, line, options);
      if (outcome.kind === "answered") conversation = outcome.conversation;
      else if (!interactive) return outcome.kind === "aborted" ? 130 : 1;
    }
    options.prompt?.();
  }
  return 0;
}

/** One question and its answer. A failed turn leaves the conversation as it was. */
async function runTurn(
  conversation: Conversation,
  question: string,
  options: ChatOptions,
): Promise<TurnOutcome> {
  const { client, endpoint, write, note } = options;
  const asked = addMessages(conversation, { role: "user", content: question });
  const controller = new AbortController();
  options.onAbortable?.(() => controller.abort());
  let shownText = false;
  try {
    const result = await streamChat({
      client,
      model: endpoint.model,
      messages: requestMessages(asked),
      signal: controller.signal,
      onText: (text) => {
        shownText = true;
        write(visible(text, { lines: true })); // the model's text, written out
      },
    });
    write("\n");
    note(usageLine(result));
    return { kind: "answered", conversation: addMessages(asked, result.message) };
  } catch (error) {
    // No question without its answer in the history: the model would answer it again next turn.
    if (shownText) write("\n");
    if (isAbort(error)) {
      note("aborted");
      return { kind: "aborted" };
    }
    note(`error: ${visible(describeModelError(error, endpoint), { lines: true })}`);
    return { kind: "failed" };
  } finally {
    options.onAbortable?.(undefined);
  }
}

/** Token usage as the server reports it; a server may not, and we say so rather than guess. */
export function usageLine({ usage }: ChatResult): string {
  if (usage === null) return "tokens: not reported by the server";
  return `tokens: ${usage.prompt_tokens} in, ${usage.completion_tokens} out`;
}
