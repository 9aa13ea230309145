// How a TypeScript client reads rlm's extra fields with the openai
// package (docs/serve.md, "TypeScript"): a module augmentation declares
// the "rlm" request field and the run summary of answers and chunks. Only
// type-checked (npx tsc --noEmit), by make test-sdk.
import OpenAI from "openai";

/** The "rlm" field of an answer: the run's summary. */
export interface RlmSummary {
  run_id: string;
  stop_reason: string;
  iterations: number;
  /** null when a model's price is unknown */
  cost_usd: number | null;
  partial: boolean;
  error?: string;
}

/** The "rlm" field of a request: variables and budgets. */
export interface RlmRequest {
  variables?: Record<string, unknown>;
  output?: string;
  max_iterations?: number;
  max_depth?: number;
  max_llm_calls?: number;
  max_tokens?: number;
  max_cost_usd?: number;
  timeout_seconds?: number;
}

declare module "openai/resources/chat/completions/completions" {
  interface ChatCompletionCreateParamsBase {
    rlm?: RlmRequest;
  }
  interface ChatCompletion {
    rlm?: RlmSummary;
  }
  interface ChatCompletionChunk {
    /** Progress chunks carry a trajectory event here, the last one the summary. */
    rlm?: Record<string, unknown>;
  }
}

export async function ask(client: OpenAI, notes: string): Promise<{ answer: string; run: string; stop: string }> {
  const r = await client.chat.completions.create({
    model: "rlm",
    messages: [{ role: "user", content: "What is the magic number?" }],
    rlm: { variables: { notes }, max_iterations: 10 },
  });
  const summary: RlmSummary | undefined = r.rlm;
  if (!summary) throw new Error("not an rlm server");
  return { answer: r.choices[0].message.content ?? "", run: summary.run_id, stop: summary.stop_reason };
}

export async function stream(client: OpenAI): Promise<{ text: string; events: number }> {
  const s = await client.chat.completions.create({
    model: "rlm",
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: "user", content: "What is the magic number?" }],
  });
  let text = "";
  let events = 0;
  for await (const chunk of s) {
    text += chunk.choices[0]?.delta.content ?? "";
    if (chunk.rlm) events++;
  }
  return { text, events };
}

// Without the augmentation, a cast reads the field as well.
export function runIDOf(r: OpenAI.Chat.Completions.ChatCompletion): string {
  return (r as OpenAI.Chat.Completions.ChatCompletion & { rlm: RlmSummary }).rlm.run_id;
}

// The augmentation is checked, not "any": a wrong type is an error.
export function typo(r: OpenAI.Chat.Completions.ChatCompletion): number | undefined {
  // @ts-expect-error run_id is a string
  const n: number | undefined = r.rlm?.run_id;
  return n;
}
